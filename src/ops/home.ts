/**
 * App Home data: everything the Home tab shows for one workspace, gathered as a plain result.
 * Each part is fetched with a short timeout and isolated: a failing or slow part comes back as
 * `{ ok: false, reason }` ("unavailable" on screen) and the other parts still render. Per-site job
 * look-ups are isolated per site too. No Slack here: the slack layer renders and publishes.
 *
 * Choices (the issue does not fix them):
 * - Jobs are looked up for at most `maxSites` configured sites (default 25, concurrency 4): a
 *   workspace with hundreds of sites would otherwise cost two calls per site on every refresh.
 *   The sites not looked up are counted and shown as such.
 * - "Failures of the last 24 hours" are ERROR jobs whose last update is within 24 h of now (the
 *   query asks the service for jobs since the UTC date of now - 24 h, then filters by instant).
 * - "The latest plan request" is the newest request of the default site's products (the plan
 *   command works per site and product; the Home tab shows the one that matters most).
 */
import pLimit from 'p-limit';
import { JOB_IN_FLIGHT, SERVICE_CODES, type ServiceCode } from '../api/codes.js';
import { isPerItemRefusal, type UnreadLatest, unreadLatestOf } from '../api/errors.js';
import type { Job, WatermarkingClient } from '../api/types.js';
import type { NextStep } from '../next-step.js';
import type { WorkspaceKey } from '../store/types.js';
import { utcDay } from '../time.js';
import { type SiteOutage, siteOutages } from '../watch/outage.js';
import { Subscriptions } from '../watch/subscriptions.js';
import type { Subscription } from '../watch/types.js';
import { type PlanRequestView, toRequestView } from './service/plan.js';
import { listSites, type SiteView } from './service/sites.js';
import { type SetupStatus, setupStatus } from './setup.js';
import { type OpsDeps, type WorkspaceClients, workspaceClients } from './workspace.js';

/**
 * One part of the Home data: its value, or why it is unavailable (plain words, no secret) and,
 * when a person can fix it, the step that does (worded by the Slack layer).
 */
export type Part<T> = { ok: true; value: T } | { ok: false; reason: string; next?: NextStep };

export interface SiteJobs {
  siteId: string;
  /** READY / PREPROCESSING jobs, newest first (at most `jobsPerSite`). */
  inFlight: Job[];
  inFlightTotal: number;
  /** ERROR jobs updated in the last 24 h, newest first (at most `jobsPerSite`). */
  failures: Job[];
  failuresTotal: number;
}

export interface JobsOverview {
  sites: Array<{ siteId: string; jobs: Part<SiteJobs> }>;
  /** Configured sites not looked up (over `maxSites`). */
  sitesNotChecked: number;
}

export interface LatestPlanRequest extends PlanRequestView {
  siteId: string;
  serviceCode: ServiceCode;
}

/** A product of the default site whose latest plan request could not be read (the rest still show). */
export interface UnreadPlanProduct {
  siteId: string;
  serviceCode: ServiceCode;
  unread: UnreadLatest;
}

export interface HomeData {
  workspace: WorkspaceKey;
  /** Epoch ms when gathered. */
  generatedAt: number;
  connection: Part<SetupStatus>;
  /** Configured sites with their products (Service API), in the configured order. */
  sites: Part<Array<{ siteId: string; site?: SiteView }>>;
  jobs: Part<JobsOverview>;
  watches: Part<Subscription[]>;
  /** Sites whose job notifications are delayed by an outage of their service (src/watch/outage.ts). */
  outages?: Part<SiteOutage[]>;
  plan: Part<LatestPlanRequest | null>;
  /**
   * Products whose latest request the service refused to read (a code the error-code table does
   * not know, a 403 for this API): named with the service's code and text, the section stays.
   */
  planUnread?: UnreadPlanProduct[];
}

export interface HomeOptions {
  /** Time limit of each part, ms (default 4000). */
  timeoutMs?: number;
  /** Sites whose jobs are looked up (default 25). */
  maxSites?: number;
  /** Jobs kept per site and list (default 10). */
  jobsPerSite?: number;
  /** Parallel per-site look-ups (default 4). */
  concurrency?: number;
}

const DAY_MS = 24 * 3600_000;

export class PartTimeoutError extends Error {
  constructor(ms: number) {
    super(`did not answer within ${Math.round(ms / 100) / 10} s`);
    this.name = 'PartTimeoutError';
  }
}

/** Every service part unavailable for one reason (the credentials are not there or unreadable). */
class UnavailableError extends Error {
  constructor(
    reason: string,
    readonly next?: NextStep,
  ) {
    super(reason);
    this.name = 'NotConfiguredError';
  }
}

/** Run `fn` with a time limit; never throws: failures become `{ ok: false, reason }`. */
export async function part<T>(fn: () => Promise<T>, timeoutMs: number): Promise<Part<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PartTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    return { ok: true, value: await Promise.race([fn(), timeout]) };
  } catch (e) {
    const next = e instanceof UnavailableError ? e.next : undefined;
    return next ? { ok: false, reason: reasonOf(e), next } : { ok: false, reason: reasonOf(e) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A short reason for the screen. Only known error shapes give their message (the API layer's
 * errors never carry a secret; see src/api/errors.ts); anything else is "unexpected error".
 */
export function reasonOf(e: unknown): string {
  if (e instanceof PartTimeoutError) return e.message;
  if (e instanceof Error) {
    switch (e.name) {
      case 'NotConfiguredError':
      case 'SiteNotConfiguredError':
        return e.message;
      case 'AuthError':
        return 'the service refused the credentials (run setup again)';
      case 'PermissionError':
        return 'the account may not use this';
      case 'TransportError':
        return 'the service could not be reached';
      case 'ServiceError': {
        const code = (e as Error & { code?: unknown }).code;
        return `the service answered ${typeof code === 'string' ? code : 'an error'}`;
      }
      case 'ProtocolError':
        return 'the service sent an answer that could not be read';
    }
  }
  return 'unexpected error';
}

function newestFirst(a: Job, b: Job): number {
  return (b.updateTime.epochMs ?? 0) - (a.updateTime.epochMs ?? 0) || b.jobId - a.jobId;
}

async function siteJobs(
  wm: WatermarkingClient,
  siteId: string,
  now: number,
  keep: number,
): Promise<SiteJobs> {
  const since = now - DAY_MS;
  const [inflight, failed] = await Promise.all([
    wm.searchJobs(siteId, { statuses: [...JOB_IN_FLIGHT], pageUnit: Math.max(keep, 1), pageIndex: 1 }),
    // 1000 is the API's page maximum: enough for a day of failures on one site.
    wm.searchJobs(siteId, {
      statuses: ['DM600'],
      from: utcDay(since),
      pageUnit: 1000,
      pageIndex: 1,
    }),
  ]);
  const recent = failed.items.filter((j) => (j.updateTime.epochMs ?? j.regTime.epochMs ?? 0) >= since);
  // When the page was full we cannot count exactly; the service's total is the upper bound.
  const failuresTotal = failed.items.length < failed.totalCount ? failed.totalCount : recent.length;
  return {
    siteId,
    inFlight: [...inflight.items].sort(newestFirst).slice(0, keep),
    inFlightTotal: inflight.totalCount,
    failures: recent.sort(newestFirst).slice(0, keep),
    failuresTotal,
  };
}

/** Everything the Home tab shows for a workspace. Never throws. */
export async function gatherHome(
  deps: OpsDeps,
  workspace: WorkspaceKey,
  opts: HomeOptions = {},
): Promise<HomeData> {
  const timeoutMs = opts.timeoutMs ?? 4000;
  const maxSites = opts.maxSites ?? 25;
  const keep = opts.jobsPerSite ?? 10;
  const limit = pLimit(opts.concurrency ?? 4);
  const now = deps.now();

  // Credentials are a local store read; their failure makes every service part unavailable.
  let clients: WorkspaceClients | undefined;
  let clientsFailure = new UnavailableError('not configured', { do: 'setup' });
  try {
    clients = await workspaceClients(deps, workspace);
  } catch (e) {
    if (!(e instanceof Error && e.name === 'NotConfiguredError'))
      clientsFailure = new UnavailableError(reasonOf(e));
  }
  const needClients = (): WorkspaceClients => {
    if (!clients) throw clientsFailure;
    return clients;
  };

  const connection = part(() => setupStatus(deps, workspace), timeoutMs);

  const sites = part(async () => {
    const c = needClients();
    if (!c.has('service')) return c.siteIds.map((siteId) => ({ siteId }));
    const known = new Map((await listSites(c.service())).map((s) => [s.siteId, s]));
    return c.siteIds.map((siteId) => {
      const site = known.get(siteId);
      return site ? { siteId, site } : { siteId };
    });
  }, timeoutMs);

  // Per-site look-ups share one deadline, so a queue of slow sites ends as "unavailable" per site
  // instead of failing the whole part.
  const started = Date.now();
  const jobs = part(async () => {
    const c = needClients();
    const wm = c.watermarking();
    const checked = c.siteIds.slice(0, maxSites);
    const perSite = await Promise.all(
      checked.map((siteId) =>
        limit(async () => {
          const left = timeoutMs - (Date.now() - started);
          const jobs: Part<SiteJobs> =
            left > 0
              ? await part(() => siteJobs(wm, siteId, now, keep), left)
              : { ok: false, reason: new PartTimeoutError(timeoutMs).message };
          return { siteId, jobs };
        }),
      ),
    );
    return { sites: perSite, sitesNotChecked: c.siteIds.length - checked.length };
  }, timeoutMs + 500);

  const watches = part(() => new Subscriptions(deps.store, deps.now).list(workspace), timeoutMs);
  const outages = part(() => siteOutages(deps.store, workspace), timeoutMs);

  const planUnread: UnreadPlanProduct[] = [];
  const plan = part(async (): Promise<LatestPlanRequest | null> => {
    const c = needClients();
    const svc = c.service();
    const siteId = c.defaultSiteId;
    const found = await Promise.all(
      SERVICE_CODES.map(async (serviceCode) => {
        try {
          const r = await svc.getLatestStatusRequest(siteId, serviceCode);
          return r ? { ...toRequestView(r), siteId, serviceCode } : null;
        } catch (e) {
          if (!isPerItemRefusal(e)) throw e;
          planUnread.push({ siteId, serviceCode, unread: unreadLatestOf(e) });
          return null;
        }
      }),
    );
    const all = found.filter((x): x is LatestPlanRequest => x !== null);
    all.sort((a, b) => (b.regTime.epochMs ?? 0) - (a.regTime.epochMs ?? 0));
    return all[0] ?? null;
  }, timeoutMs);

  return {
    workspace,
    generatedAt: now,
    connection: await connection,
    sites: await sites,
    jobs: await jobs,
    watches: await watches,
    outages: await outages,
    plan: await plan,
    ...(planUnread.length
      ? { planUnread: [...planUnread].sort((a, b) => a.serviceCode.localeCompare(b.serviceCode)) }
      : {}),
  };
}
