/**
 * A workspace's service credentials turned into API clients. Credentials come from the store
 * vault (saved by `/dwm setup`), or, in single-workspace mode, from the environment
 * (DWM_* / SERVICE_API_*): those win and are read-only (setup shows them masked and cannot change them).
 *
 * Knows nothing of Slack: the slack layer calls `workspaceClients()` lazily when a command needs it.
 */
import type { ApiFactory, ServiceClient, WatermarkingClient, WorkspaceCredentials } from '../api/types.js';
import type { Config } from '../config.js';
import { registerSecret } from '../log.js';
import { VaultError } from '../store/errors.js';
import type { Store, WorkspaceKey } from '../store/types.js';

/** The part of AppDeps the ops layer needs (structural, so ops never imports the slack layer). */
export interface OpsDeps {
  config: Pick<
    Config,
    'distribution' | 'envCredentials' | 'dwmBaseUrl' | 'serviceApiBaseUrl' | 'auditChannelId'
  > &
    Partial<Pick<Config, 'registrationInFlightGraceMs' | 'workspaceLimits'>>;
  store: Store;
  api: ApiFactory;
  now: () => number;
}

export type CredentialPart = 'watermarking' | 'service';

/** Nothing (or not the needed part) is configured for the workspace. Renders as "run /dwm setup". */
export class NotConfiguredError extends Error {
  readonly part: CredentialPart | 'all';
  constructor(part: CredentialPart | 'all') {
    super(
      part === 'all'
        ? 'No service credentials are configured for this workspace.'
        : part === 'watermarking'
          ? 'No Watermarking API credentials are configured for this workspace.'
          : 'No Service API credentials are configured for this workspace.',
    );
    this.name = 'NotConfiguredError';
    this.part = part;
  }
}

/** A `site:` that is not one of the workspace's configured sites. */
export class SiteNotConfiguredError extends Error {
  readonly siteId: string;
  readonly configured: string[];
  constructor(siteId: string, configured: string[]) {
    super(`Site ${siteId} is not configured for this workspace. Configured sites: ${configured.join(', ')}.`);
    this.name = 'SiteNotConfiguredError';
    this.siteId = siteId;
    this.configured = configured;
  }
}

export interface LoadedCredentials {
  source: 'env' | 'store';
  /** Env credentials cannot be changed from Slack. */
  readOnly: boolean;
  credentials: WorkspaceCredentials;
  verifiedAt?: string;
  savedBy?: string;
}

/**
 * The saved credentials exist but no configured key opens them (ENCRYPTION_KEY changed or wrong).
 * Only the key id (a non-secret fingerprint) is carried.
 */
export class CredentialsUnreadableError extends Error {
  constructor(readonly kid: string | undefined) {
    super(
      `The saved service credentials cannot be read: they were encrypted with key id ${kid ?? 'unknown'}, which the bot is not configured with.`,
    );
    this.name = 'CredentialsUnreadableError';
  }
}

/**
 * Where this workspace's credentials are. Env credentials apply only in single-workspace
 * distribution (config refuses them with OAuth), and then take precedence over the store.
 */
export async function loadCredentials(
  deps: OpsDeps,
  workspace: WorkspaceKey,
  opts: {
    /**
     * 'throw' (default): CredentialsUnreadableError. 'absent': treat them as not saved, so that
     * setup can open blank and an admin can replace them (a wrong ENCRYPTION_KEY must not lock
     * admins out of setup).
     */
    unreadable?: 'throw' | 'absent';
  } = {},
): Promise<LoadedCredentials | undefined> {
  const env = deps.config.envCredentials;
  if (env && deps.config.distribution === 'single') {
    registerSecret(env.watermarking?.accessKey, env.service?.secretKey);
    return { source: 'env', readOnly: true, credentials: env };
  }
  let stored: Awaited<ReturnType<OpsDeps['store']['credentials']['get']>>;
  try {
    stored = await deps.store.credentials.get(workspace);
  } catch (err) {
    if (!(err instanceof VaultError)) throw err;
    if (opts.unreadable === 'absent') return undefined;
    throw new CredentialsUnreadableError(err.kid);
  }
  if (!stored) return undefined;
  // Decrypted secrets are censored in every log line from now on (log.ts).
  registerSecret(stored.credentials.watermarking?.accessKey, stored.credentials.service?.secretKey);
  return {
    source: 'store',
    readOnly: false,
    credentials: stored.credentials,
    verifiedAt: stored.verifiedAt,
    savedBy: stored.savedBy,
  };
}

/**
 * Pick the site: `requested` (case-insensitive match of a configured id) or the default.
 * Throws SiteNotConfiguredError listing the configured sites.
 */
export function resolveSite(
  creds: Pick<WorkspaceCredentials, 'siteIds' | 'defaultSiteId'>,
  requested?: string,
): string {
  if (requested === undefined || requested === '') return creds.defaultSiteId;
  const found = creds.siteIds.find((s) => s.toLowerCase() === requested.toLowerCase());
  if (!found) throw new SiteNotConfiguredError(requested, creds.siteIds);
  return found;
}

export interface WorkspaceClients {
  workspace: WorkspaceKey;
  source: 'env' | 'store';
  readOnly: boolean;
  siteIds: string[];
  defaultSiteId: string;
  /** site:<site id> or the default; throws SiteNotConfiguredError. */
  site(requested?: string): string;
  /** Throws NotConfiguredError('watermarking') when that part is missing. */
  watermarking(): WatermarkingClient;
  /** Throws NotConfiguredError('service') when that part is missing. */
  service(): ServiceClient;
  has(part: CredentialPart): boolean;
}

/** API clients for a workspace. Throws NotConfiguredError('all') when nothing is configured. */
export async function workspaceClients(deps: OpsDeps, workspace: WorkspaceKey): Promise<WorkspaceClients> {
  const loaded = await loadCredentials(deps, workspace);
  if (!loaded) throw new NotConfiguredError('all');
  const c = loaded.credentials;
  let wm: WatermarkingClient | undefined;
  let svc: ServiceClient | undefined;
  return {
    workspace,
    source: loaded.source,
    readOnly: loaded.readOnly,
    siteIds: [...c.siteIds],
    defaultSiteId: c.defaultSiteId,
    site: (requested) => resolveSite(c, requested),
    watermarking() {
      if (!c.watermarking) throw new NotConfiguredError('watermarking');
      wm ??= deps.api.watermarking(c.watermarking);
      return wm;
    },
    service() {
      if (!c.service) throw new NotConfiguredError('service');
      svc ??= deps.api.service(c.service);
      return svc;
    },
    has: (part) => (part === 'watermarking' ? !!c.watermarking : !!c.service),
  };
}
