/**
 * FairPlay Streaming certificate registration (`/drm fpscert [site:]`). The Slack side fetches
 * the uploaded files and hands their bytes here; nothing is written to disk or to the store, and
 * the result names what was registered without echoing the ASK, the password or file contents.
 */

import { ValidationError, type ValidationIssue } from '../../api/errors.js';
import type { FpsCertUpload, ServiceClient, UploadedFile } from '../../api/types.js';
import { checkFileExtension, checkKeyPassword } from '../../api/validate.js';
import { opsEndpoint, requireSiteId } from './common.js';

/**
 * Largest accepted file, each. The spec gives no limit; a FairPlay certificate is ~1-2 KB and a
 * PEM private key ~2-4 KB, so 1 MiB refuses wrong files (a video, an archive) early while leaving
 * room for any real certificate chain.
 */
export const FPS_FILE_MAX_BYTES = 1024 * 1024;
/**
 * Largest accepted private key file. A PEM RSA key of 4096 bits, encrypted, is about 3.3 KB; 32 KiB
 * leaves room for any real key (with comments) and bounds the shape check (./pem-key.ts) on a
 * wrong file, e.g. a key and certificate chain in one .pem, or a file without its END line.
 */
export const FPS_KEY_MAX_BYTES = 32 * 1024;
/** Longest accepted application secret key (the vendor's ASK is 32 hex characters). */
export const ASK_MAX_CHARS = 256;
export const CERT_EXTENSIONS = ['.der', '.cer'] as const;
export const KEY_EXTENSIONS = ['.pem'] as const;

export interface FpsCertInput {
  ask: string;
  keyPw: string;
  fpsCert: UploadedFile;
  privateKey: UploadedFile;
}

export interface FpsCertRegistered {
  siteId: string;
  certificate: { filename: string; bytes: number };
  privateKey: { filename: string; bytes: number };
}

/** The file's own name without any directory part, for messages. */
function baseName(name: string): string {
  return name.split(/[\\/]/).pop() ?? name;
}

function checkFile(
  label: string,
  file: UploadedFile | undefined,
  allowed: readonly string[],
  maxBytes: number,
): string | null {
  if (!file || !(file.data instanceof Uint8Array)) return `The ${label} file is missing: attach it.`;
  const name = baseName(file.filename ?? '');
  const ext = checkFileExtension(name, allowed, `The ${label}`);
  if (ext) return ext;
  if (file.data.byteLength === 0) return `The ${label} file "${name.slice(0, 60)}" is empty.`;
  if (file.data.byteLength > maxBytes) {
    return `The ${label} file "${name.slice(0, 60)}" is ${file.data.byteLength} bytes; the limit is ${maxBytes} bytes.`;
  }
  return null;
}

/** Every problem of the upload at once; no message contains the ASK, the password or file bytes. */
export function checkFpsCertUpload(
  input: FpsCertInput,
  opts: { maxBytes?: number; keyMaxBytes?: number } = {},
): ValidationIssue[] {
  const maxBytes = opts.maxBytes ?? FPS_FILE_MAX_BYTES;
  const keyMaxBytes = Math.min(maxBytes, opts.keyMaxBytes ?? FPS_KEY_MAX_BYTES);
  const issues: ValidationIssue[] = [];
  const ask = typeof input.ask === 'string' ? input.ask.trim() : '';
  if (ask.length === 0) issues.push({ field: 'ask', message: 'The application secret key (ASK) is empty.' });
  else if (ask.length > ASK_MAX_CHARS) {
    issues.push({
      field: 'ask',
      message: `The application secret key is longer than ${ASK_MAX_CHARS} characters.`,
    });
  }
  const pw = typeof input.keyPw === 'string' ? input.keyPw : '';
  const pwFinding = checkKeyPassword(pw);
  if (pwFinding) issues.push({ field: 'key password', message: pwFinding });
  const cert = checkFile('certificate', input.fpsCert, CERT_EXTENSIONS, maxBytes);
  if (cert) issues.push({ field: 'certificate', message: cert });
  const key = checkFile('private key', input.privateKey, KEY_EXTENSIONS, keyMaxBytes);
  if (key) issues.push({ field: 'private key', message: key });
  return issues;
}

export async function registerFpsCert(
  client: ServiceClient,
  siteId: string,
  input: FpsCertInput,
  opts: { maxBytes?: number } = {},
): Promise<FpsCertRegistered> {
  const endpoint = opsEndpoint('fpscert');
  requireSiteId(endpoint, siteId);
  const issues = checkFpsCertUpload(input, opts);
  if (issues.length > 0) throw new ValidationError(endpoint, issues);
  const upload: FpsCertUpload = {
    ask: input.ask.trim(),
    // The password is sent exactly as typed: spaces may be part of it.
    keyPw: input.keyPw,
    fpsCert: { filename: baseName(input.fpsCert.filename), data: input.fpsCert.data },
    privateKey: { filename: baseName(input.privateKey.filename), data: input.privateKey.data },
  };
  await client.uploadFpsCert(siteId, upload);
  return {
    siteId,
    certificate: { filename: upload.fpsCert.filename, bytes: upload.fpsCert.data.byteLength },
    privateKey: { filename: upload.privateKey.filename, bytes: upload.privateKey.data.byteLength },
  };
}
