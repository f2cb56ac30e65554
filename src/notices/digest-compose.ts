/**
 * Gathering the digest's figures (plain data; the Slack layer renders it): the 24 h before the
 * digest's time, per site, read at once under one bound: the jobs by status and the failed ones,
 * the recipients registered, the license successes and failures, the pending plan requests. A
 * section that could not be read says why; the others still show.
 */
import pLimit from 'p-limit';
import { JOB_STATUS_CODES, SERVICE_CODE, type ServiceCode } from '../api/codes.js';
import { isApiError, isPerItemRefusal, unreadLatestOf } from '../api/errors.js';
import { PageWalk } from '../api/paging.js';
import type { Job, ServiceClient, WatermarkingClient, WmPage } from '../api/types.js';
import type { NextStep } from '../next-step.js';
import { utcDay } from '../time.js';
import { DAY_MS } from './digest-schedules.js';
import { readLicenseWindow } from './license-window.js';
import { requestLabel } from './requests.js';
import type {
  Digest,
  DigestFailedJob,
  DigestJobs,
  DigestLicenses,
  DigestPendingRequest,
  DigestRegistrations,
  DigestUnreadRequest,
  Section,
} from './types.js';

export interface ComposeInput {
  channelId: string;
  zone: string;
  siteIds: string[];
  wm?: WatermarkingClient;
  svc?: ServiceClient;
  now: number;
  /** Failed jobs listed (the rest counted). Default 10. */
  failedListMax?: number;
  /** Page cap per site and list (1,000 per page). Default 5. */
  maxPages?: number;
  /** Site reads running at once, all sections together. Default 4. */
  concurrency?: number;
  /** Carried to the digest as they are (see `Digest`). */
  workspace?: string;
  alertRatioPct?: Record<string, number>;
}

/** A section that could not be read: why, and that posting the digest again is the next step. */
function readFailure(what: string, e: unknown): { ok: false; error: string; next: NextStep } {
  const why = isApiError(e) ? e.message : 'an unexpected error';
  return {
    ok: false,
    error: `${what} could not be read (${why.slice(0, 200)}).`,
    next: { do: 'digest-now' },
  };
}

async function section<T>(what: string, fn: () => Promise<T>): Promise<Section<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return readFailure(what, e);
  }
}

/**
 * Every item of a list's pages, page after page until the list ends (items an earlier page
 * returned are skipped) or `maxPages` pages were read: `capped` then says the list was cut.
 */
async function readDatedList<T>(
  maxPages: number,
  readPage: (pageIndex: number) => Promise<WmPage<T>>,
  idOf: (item: T) => unknown,
): Promise<{ items: T[]; capped: boolean }> {
  const items: T[] = [];
  const walk = new PageWalk();
  for (let page = 1; ; page++) {
    if (page > maxPages) return { items, capped: true };
    const p = await readPage(page);
    const fresh = walk.fresh(p.items, idOf);
    items.push(...fresh);
    if (!walk.next(p, fresh.length)) return { items, capped: false };
  }
}

/** A section of an API whose credentials are not saved: an admin saving them is the next step. */
const SETUP_WM = {
  ok: false,
  error: 'No Watermarking API credentials are configured',
  next: { do: 'setup' },
} as const satisfies Section<never>;
const SETUP_SVC = {
  ok: false,
  error: 'No Service API credentials are configured',
  next: { do: 'setup' },
} as const satisfies Section<never>;

/** Read everything the digest shows for the 24 h before `now`. Never throws: a section says why. */
export async function composeDigest(input: ComposeInput): Promise<Digest> {
  const toMs = input.now;
  const fromMs = toMs - DAY_MS;
  const from = utcDay(fromMs);
  const to = utcDay(toMs);
  const maxPages = input.maxPages ?? 5;
  const failedMax = input.failedListMax ?? 10;
  const inWindow = (ms: number | null) => ms !== null && ms >= fromMs && ms <= toMs;
  const wm = input.wm;
  const svc = input.svc;

  // The four sections are read at once, each site through one bound (`concurrency`): a slow
  // Service API then costs about one slow read, not one per site and section, and the digest
  // still posts within a minute of its time.
  const limit = pLimit(Math.max(1, input.concurrency ?? 4));
  const perSite = <T>(fn: (siteId: string) => Promise<T>) =>
    Promise.all(input.siteIds.map((siteId) => limit(() => fn(siteId))));

  const jobsP: Promise<Section<DigestJobs>> = !wm
    ? Promise.resolve(SETUP_WM)
    : section('The jobs', async () => {
        const byStatus: Record<string, number> = Object.fromEntries(JOB_STATUS_CODES.map((c) => [c, 0]));
        const perSiteJobs: DigestJobs['perSite'] = [];
        const failedJobs: Array<{ siteId: string; job: Job }> = [];
        let truncated = false;
        const reads = await perSite(async (siteId) => {
          const site: Record<string, number> = Object.fromEntries(JOB_STATUS_CODES.map((c) => [c, 0]));
          const read = await readDatedList(
            maxPages,
            (pageIndex) => wm.searchJobs(siteId, { from, to, pageUnit: 1000, pageIndex }),
            (j) => j.jobId,
          );
          if (read.capped) truncated = true;
          const jobs = read.items.filter((j) => inWindow(j.regTime.epochMs));
          return { siteId, site, jobs };
        });
        for (const { siteId, site, jobs } of reads) {
          for (const j of jobs) {
            byStatus[j.status] = (byStatus[j.status] ?? 0) + 1;
            site[j.status] = (site[j.status] ?? 0) + 1;
            if (j.status === 'DM600') failedJobs.push({ siteId, job: j });
          }
          perSiteJobs.push({ siteId, byStatus: site });
        }
        failedJobs.sort((a, b) => (b.job.regTime.epochMs ?? 0) - (a.job.regTime.epochMs ?? 0));
        const failed: DigestFailedJob[] = [];
        for (const { siteId, job } of failedJobs.slice(0, failedMax)) {
          let n: number | null = null;
          try {
            const tasks = await wm.getJobTasks(siteId, job.jobId);
            n = tasks.items.filter((t) => t.failed).length;
          } catch {
            n = null;
          }
          failed.push({ siteId, jobId: job.jobId, contentId: job.contentId, failedRecipients: n });
        }
        return {
          byStatus,
          perSite: perSiteJobs,
          failed,
          failedMore: Math.max(0, failedJobs.length - failedMax),
          truncated,
        };
      });

  const registrationsP: Promise<Section<DigestRegistrations>> = !wm
    ? Promise.resolve(SETUP_WM)
    : section('The recipient registrations', async () => {
        let truncated = false;
        const sites: DigestRegistrations['perSite'] = await perSite(async (siteId) => {
          const read = await readDatedList(
            maxPages,
            (pageIndex) => wm.searchRecipients(siteId, { from, to, pageUnit: 1000, pageIndex }),
            (r) => r.dwmId,
          );
          if (read.capped) truncated = true;
          return { siteId, count: read.items.filter((r) => inWindow(r.regTime.epochMs)).length };
        });
        return { perSite: sites, total: sites.reduce((a, s) => a + s.count, 0), truncated };
      });

  const licensesP: Promise<Section<DigestLicenses>> = !svc
    ? Promise.resolve(SETUP_SVC)
    : section('The license counts', async () => ({
        perSite: await perSite(async (siteId) => {
          const read = await readLicenseWindow(svc, siteId, fromMs, toMs, {
            pageUnit: 1000,
            maxPages: maxPages * 4,
          });
          const fail = read.records.filter((r) => r.status === 'fail').length;
          return { siteId, success: read.records.length - fail, fail, truncated: read.truncated };
        }),
      }));

  const pendingUnread: DigestUnreadRequest[] = [];
  const pendingP: Promise<Section<DigestPendingRequest[]>> = !svc
    ? Promise.resolve(SETUP_SVC)
    : section('The pending plan requests', async () => {
        const bySite = await perSite(async (siteId) => {
          const out: DigestPendingRequest[] = [];
          for (const code of Object.keys(SERVICE_CODE) as ServiceCode[]) {
            let r: Awaited<ReturnType<typeof svc.getLatestStatusRequest>>;
            try {
              r = await svc.getLatestStatusRequest(siteId, code);
            } catch (e) {
              // One product's refusal (a code the table does not know, a 403) is named; the rest stay.
              if (!isPerItemRefusal(e)) throw e;
              const u = unreadLatestOf(e);
              pendingUnread.push({ siteId, serviceCode: code, serviceLabel: SERVICE_CODE[code], ...u });
              continue;
            }
            if (!r || (r.status ?? 'ST001') !== 'ST001') continue;
            out.push({
              siteId,
              serviceCode: code,
              serviceLabel: SERVICE_CODE[code],
              requestId: r.requestId,
              requestLabel: requestLabel(r.type),
              status: 'ST001',
              regTimeMs: r.regTime.epochMs,
            });
          }
          return out;
        });
        return bySite.flat();
      });

  const [jobs, registrations, licenses, pendingRequests] = await Promise.all([
    jobsP,
    registrationsP,
    licensesP,
    pendingP,
  ]);

  return {
    channelId: input.channelId,
    ...(input.workspace ? { workspace: input.workspace } : {}),
    ...(input.alertRatioPct ? { alertRatioPct: input.alertRatioPct } : {}),
    fromMs,
    toMs,
    zone: input.zone,
    sites: [...input.siteIds],
    jobs,
    registrations,
    licenses,
    pendingRequests,
    ...(pendingRequests.ok && pendingUnread.length ? { pendingUnread } : {}),
  };
}
