/**
 * The setup form checked before anything is sent: its fields, the formats (site ids, account ids,
 * URLs), the secrets kept from the saved credentials for blank fields (only while a part's origin
 * is unchanged) and the allow-list of upstream origins, each problem on its field. Also the
 * small helpers the rest of setup shares: masked secrets, hosts and origins.
 */
import { canonicalOrigin, type OriginRefusal } from '../../api/origins.js';
import type {
  ServiceApiCredentials,
  WatermarkingCredentials,
  WorkspaceCredentials,
} from '../../api/types.js';
import { checkSiteId } from '../../api/validate.js';

/** The raw form, every field a string ('' when blank). */
export interface SetupForm {
  siteIds: string;
  defaultSite: string;
  wmAccountId: string;
  wmAccessKey: string;
  svcAccountId: string;
  svcAccountSeq: string;
  svcSecretKey: string;
  wmBaseUrl: string;
  svcBaseUrl: string;
}
export type SetupField = keyof SetupForm;
export const SETUP_FIELDS: readonly SetupField[] = [
  'siteIds',
  'defaultSite',
  'wmAccountId',
  'wmAccessKey',
  'svcAccountId',
  'svcAccountSeq',
  'svcSecretKey',
  'wmBaseUrl',
  'svcBaseUrl',
];
export const SECRET_FIELDS: readonly SetupField[] = ['wmAccessKey', 'svcSecretKey'];

export type SetupErrors = Partial<Record<SetupField, string>>;

export type SetupCheck = { ok: true; credentials: WorkspaceCredentials } | { ok: false; errors: SetupErrors };

/** "••••abcd": last 4 only, and nothing at all of a short secret. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '(not set)';
  return secret.length >= 12 ? `\u2022\u2022\u2022\u2022${secret.slice(-4)}` : '\u2022\u2022\u2022\u2022';
}

const ACCOUNT_RE = /^[^\s\p{Cc}]{1,128}$/u;
const isUrl = (s: string) => /^https?:\/\/\S+$/i.test(s) && URL.canParse(s);

/** "wm.example.com" / "127.0.0.1:4010" of a URL: what an audit line or message may show. */
export function hostOf(url: string | undefined): string {
  if (!url) return '(none)';
  try {
    return new URL(url).host || '(none)';
  } catch {
    return '(invalid URL)';
  }
}

/** True when both URLs name the same origin (scheme, host, port). */
export function sameOrigin(a: string, b: string): boolean {
  const x = canonicalOrigin(a);
  return x !== null && x === canonicalOrigin(b);
}

/**
 * A part's URL is missing. When the form had no URL field (undefined: the operator configured no
 * URL and allows no other host, so the admin cannot type one), the fix is the operator's, first.
 */
function missingUrl(api: string, variable: string, typed: string | undefined): string {
  return typed === undefined
    ? `Not set: whoever runs the bot sets ${variable} (the ${api} URL your service provider gives), then restarts it.`
    : `Give the ${api} URL, like ${variable === 'DWM_BASE_URL' ? 'https://wm.example.com' : 'https://api.example.com'}.`;
}

/** An allow-list refusal (its fix first), then which URL it was. */
export function refusedUrl(message: string, part: 'watermarking' | 'service'): string {
  return `${message.replace(/\.$/, '')} (the ${part === 'watermarking' ? 'Watermarking' : 'Service'} API URL).`;
}

/** The allow-list check setup uses (src/api/origins.ts OriginPolicy satisfies it). */
export interface UpstreamCheck {
  check(url: string): OriginRefusal | null;
}

const NOT_A_URL = {
  'Watermarking API': 'This is not an http(s) URL, like https://wm.example.com.',
  'Service API': 'This is not an http(s) URL, like https://api.example.com.',
} as const;

/**
 * The URL and key of one API's part, the same for both APIs: the URL typed or the default, the
 * key typed or the saved one (kept only while the origin is unchanged: a saved key is only sent
 * to the host it was saved for), and what is wrong with them.
 */
function urlAndKey(
  api: keyof typeof NOT_A_URL,
  o: {
    typedUrl: string;
    defaultUrl: string | undefined;
    rawUrl: string | undefined;
    variable: string;
    typedKey: string;
    kept: { baseUrl: string; key: string } | undefined;
    keyName: 'access key' | 'secret key';
    keyMissing: string;
    upstream: UpstreamCheck | undefined;
  },
): { baseUrl: string; key: string; keyError?: string; urlError?: string } {
  const baseUrl = o.typedUrl || o.defaultUrl || '';
  const kept = o.kept;
  const keep = kept && (!baseUrl || sameOrigin(baseUrl, kept.baseUrl));
  const key = o.typedKey || (keep ? kept?.key : '') || '';
  const out: { baseUrl: string; key: string; keyError?: string; urlError?: string } = {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    key,
  };
  if (!key) {
    out.keyError =
      kept && !keep
        ? `The ${api} URL moves from ${hostOf(kept.baseUrl)} to ${hostOf(baseUrl)}: enter the ${o.keyName} again. A saved key is only sent to the host it was saved for.`
        : o.keyMissing;
  }
  if (!baseUrl) out.urlError = missingUrl(api, o.variable, o.rawUrl);
  else if (!isUrl(baseUrl)) out.urlError = NOT_A_URL[api];
  else {
    const refused = o.upstream?.check(baseUrl);
    if (refused) out.urlError = refused.message;
  }
  return out;
}

/**
 * Check formats. `existing` supplies kept secrets for blank secret fields (only while the part's
 * origin is unchanged); `defaults` supplies base URLs (DWM_BASE_URL / SERVICE_API_BASE_URL) for
 * blank URL fields and, when given, the upstream allow-list to check the URLs against.
 */
export function checkSetupForm(
  raw: Partial<SetupForm>,
  existing: WorkspaceCredentials | undefined,
  defaults: {
    wmBaseUrl?: string | undefined;
    svcBaseUrl?: string | undefined;
    upstream?: UpstreamCheck | undefined;
  },
): SetupCheck {
  const f: SetupForm = Object.fromEntries(
    SETUP_FIELDS.map((k) => [k, (raw[k] ?? '').trim()]),
  ) as unknown as SetupForm;
  const errors: SetupErrors = {};

  const siteIds = [
    ...new Set(
      f.siteIds
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (siteIds.length === 0) errors.siteIds = 'Give at least one site id, like AB12 (several: AB12, CD34).';
  else {
    const bad = siteIds.map(checkSiteId).find((m) => m !== null);
    if (bad) errors.siteIds = bad;
  }
  let defaultSiteId = siteIds[0] ?? '';
  if (f.defaultSite) {
    const match = siteIds.find((s) => s.toLowerCase() === f.defaultSite.toLowerCase());
    if (!match && !errors.siteIds)
      errors.defaultSite = `${f.defaultSite} is not in the site list; use one of ${siteIds.join(', ')} or leave it blank for the first.`;
    else if (match) defaultSiteId = match;
  }

  // Watermarking part: present when any of its fields is typed.
  let watermarking: WatermarkingCredentials | undefined;
  const keptWm = existing?.watermarking;
  if (f.wmAccountId || f.wmAccessKey) {
    const part = urlAndKey('Watermarking API', {
      typedUrl: f.wmBaseUrl,
      defaultUrl: defaults.wmBaseUrl,
      rawUrl: raw.wmBaseUrl,
      variable: 'DWM_BASE_URL',
      typedKey: f.wmAccessKey,
      kept: keptWm && { baseUrl: keptWm.baseUrl, key: keptWm.accessKey },
      keyName: 'access key',
      keyMissing: 'Give the watermarking access key.',
      upstream: defaults.upstream,
    });
    if (!f.wmAccountId)
      errors.wmAccountId = 'Give the watermarking account id (or clear the access key to skip watermarking).';
    else if (!ACCOUNT_RE.test(f.wmAccountId))
      errors.wmAccountId = 'The account id must be 1 to 128 characters without spaces.';
    if (part.keyError) errors.wmAccessKey = part.keyError;
    if (part.urlError) errors.wmBaseUrl = part.urlError;
    watermarking = { accountId: f.wmAccountId, accessKey: part.key, baseUrl: part.baseUrl };
  } else if (f.wmBaseUrl && !isUrl(f.wmBaseUrl)) {
    errors.wmBaseUrl = NOT_A_URL['Watermarking API'];
  }

  let service: ServiceApiCredentials | undefined;
  const keptSvc = existing?.service;
  if (f.svcAccountId || f.svcAccountSeq || f.svcSecretKey) {
    const part = urlAndKey('Service API', {
      typedUrl: f.svcBaseUrl,
      defaultUrl: defaults.svcBaseUrl,
      rawUrl: raw.svcBaseUrl,
      variable: 'SERVICE_API_BASE_URL',
      typedKey: f.svcSecretKey,
      kept: keptSvc && { baseUrl: keptSvc.baseUrl, key: keptSvc.secretKey },
      keyName: 'secret key',
      keyMissing: 'Give the Service API secret key.',
      upstream: defaults.upstream,
    });
    if (!f.svcAccountId) errors.svcAccountId = 'Give the Service API account id.';
    else if (!ACCOUNT_RE.test(f.svcAccountId))
      errors.svcAccountId = 'The account id must be 1 to 128 characters without spaces.';
    if (!/^\d{1,20}$/.test(f.svcAccountSeq))
      errors.svcAccountSeq = 'The account sequence is a number, like 1024.';
    if (part.keyError) errors.svcSecretKey = part.keyError;
    if (part.urlError) errors.svcBaseUrl = part.urlError;
    service = {
      accountId: f.svcAccountId,
      accountSeq: f.svcAccountSeq,
      secretKey: part.key,
      baseUrl: part.baseUrl,
    };
  } else if (f.svcBaseUrl && !isUrl(f.svcBaseUrl)) {
    errors.svcBaseUrl = NOT_A_URL['Service API'];
  }

  if (!watermarking && !service && !errors.wmAccountId) {
    errors.wmAccountId = 'Give the watermarking credentials, the Service API credentials, or both.';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    credentials: {
      siteIds,
      defaultSiteId,
      ...(watermarking ? { watermarking } : {}),
      ...(service ? { service } : {}),
    },
  };
}
