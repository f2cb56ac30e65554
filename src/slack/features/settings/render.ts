/**
 * `/drm settings`: the DRM integration settings with the four secrets masked (the op masks them;
 * this renderer never sees a clear secret), the edit modal and the saved view. Always ephemeral
 * to an admin: the command layer refuses `share`.
 */
import type { MaskedSettings } from '../../../ops/service/settings.js';
import { CALLBACK_URL_MAX } from '../../../ops/service/settings.js';
import {
  actions,
  button,
  context,
  fields,
  header,
  type Message,
  type ModalView,
  message,
  modal,
  section,
  textInput,
} from '../../kit/blocks/blocks.js';
import { code, esc } from '../../kit/blocks/mrkdwn.js';
import { infoView } from '../../shared/svc/support.js';
import {
  type CardMeta,
  cardContext,
  count,
  encodeValue,
  SVC_ACTIONS,
  SVC_VIEWS,
} from '../../shared/svc/values.js';

function secret(v: string): string {
  return v ? code(v) : '_not set_';
}

function url(v: string): string {
  return v ? esc(v) : '_not set_';
}

/** "3,600 s (1 h)" */
export function durationText(seconds: number): string {
  const h = seconds / 3600;
  const human = seconds % 3600 === 0 ? `${h} h` : seconds % 60 === 0 ? `${seconds / 60} min` : '';
  return `${count(seconds)} s${human ? ` (${human})` : ''}`;
}

export function settingsMessage(
  s: MaskedSettings,
  meta: CardMeta & { workspace: string; banner?: string },
): Message {
  const blocks = [];
  if (meta.banner) blocks.push(section(meta.banner));
  blocks.push(
    header(`DRM settings · ${s.siteId}`),
    section('Integration values (secrets masked: only the last characters are shown).', {
      fields: fields([
        ['Site key', secret(s.siteKey)],
        ['Access key', secret(s.accessKey)],
        ['KMS token', secret(s.kmsToken)],
        ['IV', secret(s.iv)],
        ['License callback URL', url(s.licenseCallbackUrl)],
        ['Package callback URL', url(s.packageCallbackUrl)],
        ['License token duration', durationText(s.tokenDuration)],
      ]),
    }),
    actions(
      [
        button('Edit callbacks and duration', SVC_ACTIONS.settingsEdit, {
          value: encodeValue({ w: meta.workspace, s: s.siteId }),
          style: 'primary',
        }),
      ],
      'svc_settings_actions',
    ),
    context(cardContext({ ...meta, siteId: s.siteId }), 'Only you can see this message.'),
  );
  return message(`DRM settings of ${s.siteId} (secrets masked)`, blocks);
}

export function settingsShareRefused(): Message {
  return message('Settings are never posted in a channel.', [
    section(
      ':lock: *DRM settings are never posted in a channel*, not even masked. Run `/drm settings` without `share`: only you will see them.',
    ),
  ]);
}

export const SETTINGS_BLOCK = {
  license: 'svc_set_license_url',
  package: 'svc_set_package_url',
  duration: 'svc_set_token_duration',
} as const;

export function settingsEditModal(
  s: Pick<MaskedSettings, 'siteId' | 'licenseCallbackUrl' | 'packageCallbackUrl' | 'tokenDuration'>,
  privateMetadata: string,
  failure?: string,
): ModalView {
  const blocks = [];
  if (failure) blocks.push(section(`:warning: ${failure}`));
  blocks.push(
    section(
      `Site ${code(s.siteId)}. Leave a URL empty to clear it (the callbacks are deprecated by the service).`,
    ),
    textInput(SETTINGS_BLOCK.license, 'License callback URL', {
      initial: s.licenseCallbackUrl,
      optional: true,
      maxLength: CALLBACK_URL_MAX,
      placeholder: 'https://…',
    }),
    textInput(SETTINGS_BLOCK.package, 'Package callback URL', {
      initial: s.packageCallbackUrl,
      optional: true,
      maxLength: CALLBACK_URL_MAX,
      placeholder: 'https://…',
    }),
    textInput(SETTINGS_BLOCK.duration, 'License token duration (seconds)', {
      initial: String(s.tokenDuration),
      maxLength: 12,
      hint: 'How long a license token stays valid, in seconds (3600 = 1 hour).',
    }),
  );
  return modal(SVC_VIEWS.settingsEdit, 'Edit DRM settings', blocks, { submit: 'Save', privateMetadata });
}

export function settingsSavedView(siteId: string, changed: string[]): ModalView {
  const names: Record<string, string> = {
    licenseCallbackUrl: 'license callback URL',
    packageCallbackUrl: 'package callback URL',
    tokenDuration: 'token duration',
  };
  return infoView(
    'DRM settings saved',
    `:white_check_mark: Saved the ${changed.map((c) => names[c] ?? c).join(', ')} of site ${code(siteId)}. Run \`/drm settings\` to see them.`,
  );
}
