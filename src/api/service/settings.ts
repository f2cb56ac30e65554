/**
 * The Service API's DRM integration settings of a site: read them (keys, callbacks, token
 * duration), change the callbacks or the token duration, and upload the FairPlay certificate
 * (endpoint 18: the ASK, the key password and two files, always multipart form data so its
 * secrets never go into a URL).
 */
import { Blob } from 'node:buffer';
import { FormData } from 'undici';
import { z } from 'zod';
import { parseWith } from '../envelope.js';
import { text } from '../fields.js';
import type { ServiceClient } from '../types.js';
import {
  assertValid,
  checkFileExtension,
  checkKeyPassword,
  checkNonEmpty,
  checkSiteId,
  checkTokenDuration,
  checkUrl,
} from '../validate.js';
import type { ServiceCall } from './call.js';
import { enc, ep, orZero } from './parse.js';

const settingsSchema = z.object({
  site_id: text,
  site_key: text,
  access_key: text,
  license_callback_url: text,
  package_callback_url: text,
  kms_token: text,
  token_duration: orZero,
  iv: text,
});

export type SettingsEndpoints = Pick<ServiceClient, 'getSettings' | 'updateSettings' | 'uploadFpsCert'>;

export function settingsEndpoints(call: ServiceCall): SettingsEndpoints {
  return {
    async getSettings(siteId) {
      const name = 'getSettings';
      assertValid(ep(name), [['site id', checkSiteId(siteId)]]);
      const env = await call(name, 'GET', `/drm/setting/${enc(siteId)}`);
      const w = parseWith(ep(name), settingsSchema, env.data);
      return {
        siteId: w.site_id,
        siteKey: w.site_key,
        accessKey: w.access_key,
        licenseCallbackUrl: w.license_callback_url,
        packageCallbackUrl: w.package_callback_url,
        kmsToken: w.kms_token,
        tokenDuration: w.token_duration,
        iv: w.iv,
      };
    },

    async updateSettings(siteId, update) {
      const name = 'updateSettings';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        [
          'license callback URL',
          update.licenseCallbackUrl === undefined ? null : checkUrl(update.licenseCallbackUrl),
        ],
        [
          'package callback URL',
          update.packageCallbackUrl === undefined ? null : checkUrl(update.packageCallbackUrl),
        ],
        [
          'token duration',
          update.tokenDuration === undefined ? null : checkTokenDuration(update.tokenDuration),
        ],
        [
          'settings',
          update.licenseCallbackUrl === undefined &&
          update.packageCallbackUrl === undefined &&
          update.tokenDuration === undefined
            ? 'Nothing to change: give a callback URL or a token duration.'
            : null,
        ],
      ]);
      await call(name, 'PUT', `/drm/setting/${enc(siteId)}`, {
        license_callback_url: update.licenseCallbackUrl,
        package_callback_url: update.packageCallbackUrl,
        token_duration: update.tokenDuration,
      });
    },

    async uploadFpsCert(siteId, upload) {
      const name = 'uploadFpsCert';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ['ask', checkNonEmpty(upload.ask, 'The application secret key (ASK)')],
        ['key password', checkKeyPassword(upload.keyPw)],
        ['certificate', checkFileExtension(upload.fpsCert.filename, ['.der', '.cer'], 'The certificate')],
        [
          'certificate',
          upload.fpsCert.data.byteLength === 0
            ? 'The certificate file is empty: attach the .der/.cer file.'
            : null,
        ],
        ['private key', checkFileExtension(upload.privateKey.filename, ['.pem'], 'The private key')],
        [
          'private key',
          upload.privateKey.data.byteLength === 0
            ? 'The private key file is empty: attach the .pem file.'
            : null,
        ],
      ]);
      const form = new FormData();
      form.append('ask', upload.ask);
      form.append('key_pw', upload.keyPw);
      form.append(
        'fps_cert',
        new Blob([upload.fpsCert.data], { type: 'application/octet-stream' }),
        upload.fpsCert.filename,
      );
      form.append(
        'private_key',
        new Blob([upload.privateKey.data], { type: 'application/x-pem-file' }),
        upload.privateKey.filename,
      );
      await call(name, 'POST', `/drm/setting/fpscert/${enc(siteId)}`, {}, form);
    },
  };
}
