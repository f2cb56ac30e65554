/**
 * The single workspace's service credentials given in the environment (DWM_SITE_IDS,
 * DWM_DEFAULT_SITE, the DWM_* and SERVICE_API_* keys): their checks (each set complete or absent,
 * site ids with them, the base URL of each API, a default site among the ids; none at all with
 * OAuth, where each workspace saves its own) and the `WorkspaceCredentials` they make.
 */
import type { ServiceApiCredentials, WatermarkingCredentials, WorkspaceCredentials } from '../api/types.js';
import type { Settings } from './read.js';
import type { Config, ConfigIssue } from './types.js';

const WM_VARIABLES = ['DWM_ACCOUNT_ID', 'DWM_ACCESS_KEY'];
const SVC_VARIABLES = ['SERVICE_API_ACCOUNT_ID', 'SERVICE_API_ACCOUNT_SEQ', 'SERVICE_API_SECRET_KEY'];
const CREDENTIAL_VARIABLES = ['DWM_SITE_IDS', 'DWM_DEFAULT_SITE', ...WM_VARIABLES, ...SVC_VARIABLES];

/** Which of the two credential sets are complete. */
interface Complete {
  wm: boolean;
  svc: boolean;
}

/** The credentials of the environment, when given and valid, and the issues of what is given. */
export function envCredentialsOf(
  s: Settings,
  distribution: Config['distribution'],
): { issues: ConfigIssue[]; credentials?: WorkspaceCredentials } {
  const issues: ConfigIssue[] = [];
  const complete: Complete = {
    wm: completeSet(s, WM_VARIABLES, 'Watermarking API', issues),
    svc: completeSet(s, SVC_VARIABLES, 'Service API', issues),
  };
  const given = CREDENTIAL_VARIABLES.filter(s.has);
  if (given.length === 0) return { issues };
  if (distribution === 'oauth') {
    issues.push({
      variable: given.join(' / '),
      message:
        'service credentials in the environment are for a single workspace; with OAuth each workspace saves its own with `/drm setup`. Unset them.',
    });
    return { issues };
  }
  issues.push(...singleWorkspaceIssues(s, complete));
  const credentials = credentialsOf(s, complete);
  return credentials ? { issues, credentials } : { issues };
}

/** Whether every one of `vars` is given; an issue (pushed) when only some are. */
function completeSet(s: Settings, vars: string[], label: string, issues: ConfigIssue[]): boolean {
  const set = vars.filter(s.has);
  if (set.length > 0 && set.length < vars.length) {
    const missing = vars.filter((n) => !s.has(n));
    issues.push({
      variable: missing.join(' / '),
      message: `${label} credentials are incomplete: set ${missing.join(' and ')} as well, or unset ${set.join(' and ')}.`,
    });
  }
  return set.length === vars.length;
}

/** The site ids and default site, when both are known (the default: the first id). */
function sitesOf(s: Settings): { siteIds?: string[]; defaultSiteId?: string } {
  const siteIds = s.values.DWM_SITE_IDS as string[] | undefined;
  const defaultSiteId = s.str('DWM_DEFAULT_SITE') ?? siteIds?.[0];
  return { ...(siteIds ? { siteIds } : {}), ...(defaultSiteId ? { defaultSiteId } : {}) };
}

function singleWorkspaceIssues(s: Settings, complete: Complete): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (!s.has('DWM_SITE_IDS')) {
    issues.push({
      variable: 'DWM_SITE_IDS',
      message:
        'is required with service credentials: set the comma-separated site ids this workspace may use.',
    });
  }
  if (!complete.wm && !complete.svc && !WM_VARIABLES.some(s.has) && !SVC_VARIABLES.some(s.has)) {
    issues.push({
      variable: `${WM_VARIABLES.join(' / ')} / ${SVC_VARIABLES.join(' / ')}`,
      message: 'site ids are set but no credentials: set the DWM_* and/or SERVICE_API_* credentials.',
    });
  }
  if (complete.wm && !s.has('DWM_BASE_URL')) {
    issues.push({
      variable: 'DWM_BASE_URL',
      message: 'is required with DWM_ACCOUNT_ID: set the Watermarking API URL.',
    });
  }
  if (complete.svc && !s.has('SERVICE_API_BASE_URL')) {
    issues.push({
      variable: 'SERVICE_API_BASE_URL',
      message: 'is required with SERVICE_API_ACCOUNT_ID: set the Service API URL.',
    });
  }
  const { siteIds, defaultSiteId: def } = sitesOf(s);
  if (siteIds && def && !siteIds.includes(def)) {
    issues.push({
      variable: 'DWM_DEFAULT_SITE',
      message: `"${def}" is not one of DWM_SITE_IDS (${siteIds.join(', ')}): set it to one of them or add it to the list.`,
    });
  }
  return issues;
}

function credentialsOf(s: Settings, complete: Complete): WorkspaceCredentials | undefined {
  const { siteIds, defaultSiteId } = sitesOf(s);
  if (!siteIds || !defaultSiteId) return undefined;
  const str = s.str;
  const watermarking: WatermarkingCredentials | undefined =
    complete.wm && str('DWM_BASE_URL')
      ? {
          accountId: str('DWM_ACCOUNT_ID')!,
          accessKey: str('DWM_ACCESS_KEY')!,
          baseUrl: str('DWM_BASE_URL')!,
        }
      : undefined;
  const service: ServiceApiCredentials | undefined =
    complete.svc && str('SERVICE_API_BASE_URL')
      ? {
          accountId: str('SERVICE_API_ACCOUNT_ID')!,
          accountSeq: str('SERVICE_API_ACCOUNT_SEQ')!,
          secretKey: str('SERVICE_API_SECRET_KEY')!,
          baseUrl: str('SERVICE_API_BASE_URL')!,
        }
      : undefined;
  return {
    siteIds,
    defaultSiteId,
    ...(watermarking ? { watermarking } : {}),
    ...(service ? { service } : {}),
  };
}
