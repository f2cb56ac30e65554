/**
 * DRM integration settings (`/drm settings [site:]`): a masked view (the clear secrets never
 * leave this module) and the update of callback URLs and token duration.
 */
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../api/errors.js';
import type { DrmSettings, DrmSettingsUpdate, ServiceClient } from '../../api/types.js';
import { checkUrl } from '../../api/validate.js';
import { opsEndpoint, requireSiteId } from './common.js';

/** Fixed run of dots shown in place of the hidden part: the same for every length. */
export const MASK_DOTS = '••••••••';

/**
 * Masks a secret: a fixed run of dots then at most the last 4 characters. Short values reveal
 * less (a quarter of their length, rounded down), so a 4-character value shows nothing of itself
 * and no value is ever shown whole. Empty stays empty, so "not set" is still visible.
 */
export function mask(value: string | null | undefined): string {
  if (!value) return '';
  const chars = [...value];
  const reveal = Math.min(4, Math.floor(chars.length / 4));
  return reveal === 0 ? MASK_DOTS : MASK_DOTS + chars.slice(-reveal).join('');
}

/** What the Slack side renders: the four secrets masked, the rest as is. */
export interface MaskedSettings {
  siteId: string;
  siteKey: string;
  accessKey: string;
  kmsToken: string;
  iv: string;
  licenseCallbackUrl: string;
  packageCallbackUrl: string;
  /** Seconds. */
  tokenDuration: number;
}

export function maskSettings(s: DrmSettings): MaskedSettings {
  return {
    siteId: s.siteId,
    siteKey: mask(s.siteKey),
    accessKey: mask(s.accessKey),
    kmsToken: mask(s.kmsToken),
    iv: mask(s.iv),
    licenseCallbackUrl: s.licenseCallbackUrl,
    packageCallbackUrl: s.packageCallbackUrl,
    tokenDuration: s.tokenDuration,
  };
}

export async function getSettings(client: ServiceClient, siteId: string): Promise<MaskedSettings> {
  requireSiteId(opsEndpoint('settings.get'), siteId);
  return maskSettings(await client.getSettings(siteId));
}

/**
 * Longest license token duration accepted, in seconds. The spec gives no limit; one year is far
 * above any sensible license token lifetime and still catches a typo of extra digits. A
 * deployment that needs more passes `maxTokenDuration`.
 */
export const TOKEN_DURATION_MAX = 31_536_000;
export const CALLBACK_URL_MAX = 2000;

export interface SettingsUpdateInput {
  /** http(s) URL; "" clears it (the callback integrations are deprecated). */
  licenseCallbackUrl?: string;
  packageCallbackUrl?: string;
  /** Seconds; a number or its decimal text (from a Slack input). */
  tokenDuration?: number | string;
}

/** The API's URL rule (http/https, "" clears) plus a length cap and no embedded credentials. */
function checkCallbackUrl(value: string): string | null {
  if (value === '') return null;
  if (value.length > CALLBACK_URL_MAX) return `The URL is longer than ${CALLBACK_URL_MAX} characters.`;
  const finding = checkUrl(value);
  if (finding) return finding;
  const u = new URL(value);
  if (u.username || u.password) return 'The URL must not contain a user name or password.';
  return null;
}

const updateShape = z
  .object({
    licenseCallbackUrl: z.string().trim().optional(),
    packageCallbackUrl: z.string().trim().optional(),
    tokenDuration: z.union([z.number(), z.string().trim()]).optional(),
  })
  .strict();

/** Validates an update and turns it into the API's shape; every problem is reported at once. */
export function toSettingsUpdate(
  input: SettingsUpdateInput,
  opts: { maxTokenDuration?: number } = {},
): DrmSettingsUpdate {
  const endpoint = opsEndpoint('settings.update');
  const max = opts.maxTokenDuration ?? TOKEN_DURATION_MAX;
  const parsed = updateShape.safeParse(input);
  if (!parsed.success) {
    throw new ValidationError(
      endpoint,
      parsed.error.issues.map((i) => ({ field: i.path.join('.') || 'input', message: i.message })),
    );
  }
  const f = parsed.data;
  const issues: ValidationIssue[] = [];
  const out: DrmSettingsUpdate = {};
  for (const key of ['licenseCallbackUrl', 'packageCallbackUrl'] as const) {
    const v = f[key];
    if (v === undefined) continue;
    const finding = checkCallbackUrl(v);
    if (finding)
      issues.push({
        field: key === 'licenseCallbackUrl' ? 'license callback URL' : 'package callback URL',
        message: finding,
      });
    else out[key] = v;
  }
  if (f.tokenDuration !== undefined) {
    const raw = f.tokenDuration;
    const n = typeof raw === 'number' ? raw : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > max) {
      issues.push({
        field: 'token duration',
        message: `Token duration ${String(raw).slice(0, 20)} is not valid: use a whole number of seconds from 1 to ${max}.`,
      });
    } else out.tokenDuration = n;
  }
  if (issues.length > 0) throw new ValidationError(endpoint, issues);
  if (Object.keys(out).length === 0) {
    throw new ValidationError(endpoint, [
      {
        field: 'settings',
        message:
          'Nothing to change: give a license callback URL, a package callback URL or a token duration.',
      },
    ]);
  }
  return out;
}

/** Applies the update and returns the names of the fields sent (values are the caller's own input). */
export async function updateSettings(
  client: ServiceClient,
  siteId: string,
  input: SettingsUpdateInput,
  opts: { maxTokenDuration?: number } = {},
): Promise<{ siteId: string; changed: (keyof DrmSettingsUpdate)[] }> {
  requireSiteId(opsEndpoint('settings.update'), siteId);
  const update = toSettingsUpdate(input, opts);
  await client.updateSettings(siteId, update);
  return { siteId, changed: Object.keys(update) as (keyof DrmSettingsUpdate)[] };
}
