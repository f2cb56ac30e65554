/**
 * An in-memory WatermarkingClient for unit tests of ops. It follows the spec's rules the way the
 * real client + service pair does: input is validated before "sending" (ValidationError), names
 * are unique per site case-insensitively (E2002 refuses the whole request), at most 150 per
 * registration (E2001), paging with page_unit 1..1000, keyword search as a case-insensitive
 * substring match with repeated keywords OR-ed. Hooks inject faults per call, including the
 * ambiguous kind (the write is applied, then the call fails).
 */
import { type ErrorCondition, errorCodes } from '../../src/api/error-codes.js';
import { ServiceError, TransportError } from '../../src/api/errors.js';
import type {
  Job,
  JobSearchQuery,
  JobTask,
  ModifiedRecipient,
  NewRecipient,
  Recipient,
  RecipientPatch,
  RecipientSearchQuery,
  TimeValue,
  WatermarkingClient,
  WmPage,
} from '../../src/api/types.js';
import {
  assertValid,
  checkPageIndex,
  checkPageUnit,
  checkRecipientDescription,
  checkRecipientName,
  LIMITS,
  nameKey,
} from '../../src/api/validate.js';

/** The service code of a condition, from the active table (so SERVICE_ERROR_CODES overrides apply). */
function code(condition: ErrorCondition): string {
  return errorCodes()[condition];
}

export type FakeMethod = keyof WatermarkingClient;

export interface FakeCall {
  method: FakeMethod;
  siteId: string;
  args: unknown[];
}

/**
 * A fault for one call. `before`: throw without applying. `after`: apply the call (e.g. register
 * the recipients), then throw: the ambiguous failure a timeout after sending produces.
 */
export type FakeFault = { before: Error } | { after: Error };

/** Decides per call whether to inject a fault; return undefined to let the call through. */
export type FakeHook = (call: FakeCall, callIndex: number) => FakeFault | undefined;

function timeValue(ms: number): TimeValue {
  return { raw: new Date(ms).toISOString().slice(0, 19), epochMs: ms };
}

export function transportTimeout(endpoint = 'wm.registerRecipients'): TransportError {
  return new TransportError(endpoint, `${endpoint} timed out`, undefined, 1);
}

interface SiteData {
  recipients: Map<number, Recipient>;
  byKey: Map<string, number>;
  jobs: Map<number, { job: Job; tasks: JobTask[] }>;
  inUse: Set<number>;
}

export class FakeWatermarkingClient implements WatermarkingClient {
  readonly calls: FakeCall[] = [];
  private readonly sites = new Map<string, SiteData>();
  private nextDwmId = 1;
  private nextJobId = 1;
  private hooks: FakeHook[] = [];
  private readonly now: () => number;

  constructor(opts: { siteIds?: string[]; now?: () => number } = {}) {
    this.now = opts.now ?? (() => Date.UTC(2026, 0, 15, 9, 0, 0));
    for (const s of opts.siteIds ?? ['AB12']) this.addSite(s);
  }

  addSite(siteId: string): void {
    this.sites.set(siteId, { recipients: new Map(), byKey: new Map(), jobs: new Map(), inUse: new Set() });
  }

  /** Add a fault hook; returns a function that removes it. */
  hook(h: FakeHook): () => void {
    this.hooks.push(h);
    return () => {
      this.hooks = this.hooks.filter((x) => x !== h);
    };
  }

  /** Calls of one method. */
  callsOf(method: FakeMethod): FakeCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Seed recipients directly (no call recorded). */
  seedRecipients(siteId: string, recipients: NewRecipient[]): Recipient[] {
    return this.applyRegister(this.site(siteId), recipients);
  }

  /** Every recipient of a site, by dwmId. */
  allRecipients(siteId: string): Recipient[] {
    return [...this.site(siteId).recipients.values()];
  }

  setInUse(siteId: string, dwmId: number, inUse = true): void {
    const s = this.site(siteId);
    if (inUse) s.inUse.add(dwmId);
    else s.inUse.delete(dwmId);
  }

  seedJob(siteId: string, job: Omit<Job, 'jobId'> & { jobId?: number }, tasks: JobTask[]): Job {
    const full: Job = { ...job, jobId: job.jobId ?? this.nextJobId++ };
    this.site(siteId).jobs.set(full.jobId, { job: full, tasks });
    return full;
  }

  // -- WatermarkingClient ------------------------------------------------------------------------

  async verify(siteId: string): Promise<void> {
    await this.enter('verify', siteId, [], () => undefined);
  }

  async searchJobs(siteId: string, query: JobSearchQuery = {}): Promise<WmPage<Job>> {
    return this.enter('searchJobs', siteId, [query], (s) => {
      this.checkPaging(query.pageUnit, query.pageIndex, 'wm.searchJobs');
      let jobs = [...s.jobs.values()].map((j) => j.job);
      if (query.contentId) jobs = jobs.filter((j) => j.contentId === query.contentId);
      if (query.statuses?.length) jobs = jobs.filter((j) => query.statuses?.includes(j.status));
      jobs.sort((a, b) => b.jobId - a.jobId);
      return this.page(jobs, query.pageUnit, query.pageIndex, query.timeZone);
    });
  }

  async getJob(siteId: string, jobId: number): Promise<Job> {
    return this.enter('getJob', siteId, [jobId], (s) => {
      const j = s.jobs.get(jobId);
      if (!j) throw new ServiceError('wm.getJob', code('jobNotFound'), `Job ${jobId} not found`);
      return j.job;
    });
  }

  async getJobTasks(siteId: string, jobId: number): Promise<WmPage<JobTask>> {
    return this.enter('getJobTasks', siteId, [jobId], (s) => {
      const j = s.jobs.get(jobId);
      if (!j) throw new ServiceError('wm.getJobTasks', code('jobNotFound'), `Job ${jobId} not found`);
      return {
        items: j.tasks,
        totalCount: j.tasks.length,
        pageIndex: 1,
        pageUnit: j.tasks.length,
        timeZone: '+00:00',
      };
    });
  }

  async searchRecipients(siteId: string, query: RecipientSearchQuery = {}): Promise<WmPage<Recipient>> {
    return this.enter('searchRecipients', siteId, [query], (s) => {
      this.checkPaging(query.pageUnit, query.pageIndex, 'wm.searchRecipients');
      let list = [...s.recipients.values()];
      const kws = (query.keywords ?? []).filter((k) => k.length > 0).map(nameKey);
      if (kws.length > 0) list = list.filter((r) => kws.some((k) => nameKey(r.name).includes(k)));
      return this.page(list, query.pageUnit, query.pageIndex, query.timeZone);
    });
  }

  async getRecipient(siteId: string, dwmId: number): Promise<Recipient> {
    return this.enter('getRecipient', siteId, [dwmId], (s) => {
      const r = s.recipients.get(dwmId);
      if (!r)
        throw new ServiceError('wm.getRecipient', code('recipientNotFound'), `dwm_id ${dwmId} not found`);
      return { ...r, updateTime: r.updateTime ?? r.regTime };
    });
  }

  async registerRecipients(siteId: string, recipients: NewRecipient[]): Promise<Recipient[]> {
    const checks: Array<[string, string | null]> = [];
    recipients.forEach((r, i) => {
      checks.push([`recipients[${i}].name`, checkRecipientName(r.name)]);
      if (r.description !== undefined) {
        checks.push([`recipients[${i}].description`, checkRecipientDescription(r.description)]);
      }
      const extra = Object.keys(r).filter((k) => k !== 'name' && k !== 'description');
      if (extra.length > 0) checks.push([`recipients[${i}]`, `unexpected fields ${extra.join(', ')}`]);
    });
    assertValid('wm.registerRecipients', checks);
    return this.enter('registerRecipients', siteId, [recipients.map((r) => ({ ...r }))], (s) => {
      if (recipients.length > LIMITS.recipientsPerRegistration) {
        throw new ServiceError(
          'wm.registerRecipients',
          code('tooManyRecipients'),
          `At most ${LIMITS.recipientsPerRegistration} recipients per request`,
        );
      }
      const dup: string[] = [];
      const seen = new Set<string>();
      for (const r of recipients) {
        const k = nameKey(r.name);
        if (s.byKey.has(k) || seen.has(k)) dup.push(r.name);
        seen.add(k);
      }
      if (dup.length > 0) {
        throw new ServiceError(
          'wm.registerRecipients',
          code('duplicateRecipient'),
          `Duplicate recipient name: ${dup.join(', ')}`,
        );
      }
      return this.applyRegister(s, recipients);
    });
  }

  async modifyRecipient(siteId: string, dwmId: number, patch: RecipientPatch): Promise<ModifiedRecipient> {
    assertValid('wm.modifyRecipient', [
      ['name', patch.name !== undefined ? checkRecipientName(patch.name) : null],
      ['description', patch.description !== undefined ? checkRecipientDescription(patch.description) : null],
      [
        'body',
        patch.name === undefined && patch.description === undefined ? 'send a name or a description' : null,
      ],
    ]);
    return this.enter('modifyRecipient', siteId, [dwmId, { ...patch }], (s) => {
      const r = s.recipients.get(dwmId);
      if (!r) {
        throw new ServiceError('wm.modifyRecipient', code('recipientNotFound'), `dwm_id ${dwmId} not found`);
      }
      if (s.inUse.has(dwmId)) {
        throw new ServiceError(
          'wm.modifyRecipient',
          code('recipientInUse'),
          'Recipient in use by pre-embedding',
        );
      }
      if (patch.name !== undefined) {
        const k = nameKey(patch.name);
        const other = s.byKey.get(k);
        if (other !== undefined && other !== dwmId) {
          throw new ServiceError(
            'wm.modifyRecipient',
            code('duplicateRecipient'),
            `Duplicate: ${patch.name}`,
          );
        }
        s.byKey.delete(nameKey(r.name));
        s.byKey.set(k, dwmId);
        r.name = patch.name;
      }
      if (patch.description !== undefined) r.description = patch.description;
      r.updateTime = timeValue(this.now());
      return { dwmId, updateTime: r.updateTime };
    });
  }

  // -- internals ---------------------------------------------------------------------------------

  private site(siteId: string): SiteData {
    const s = this.sites.get(siteId);
    if (!s) throw new ServiceError('wm', code('siteNotFound'), `Site ${siteId} not found`);
    return s;
  }

  private applyRegister(s: SiteData, recipients: NewRecipient[]): Recipient[] {
    const out: Recipient[] = [];
    for (const r of recipients) {
      const rec: Recipient = {
        dwmId: this.nextDwmId++,
        name: r.name,
        description: r.description ?? '',
        regTime: timeValue(this.now()),
      };
      s.recipients.set(rec.dwmId, rec);
      s.byKey.set(nameKey(rec.name), rec.dwmId);
      out.push({ ...rec });
    }
    return out;
  }

  private checkPaging(pageUnit: number | undefined, pageIndex: number | undefined, endpoint: string): void {
    assertValid(endpoint, [
      ['page_unit', pageUnit !== undefined ? checkPageUnit(pageUnit) : null],
      ['page_index', pageIndex !== undefined ? checkPageIndex(pageIndex) : null],
    ]);
  }

  private page<T>(
    all: T[],
    pageUnit: number = LIMITS.pageUnitDefault,
    pageIndex = 1,
    timeZone = '+00:00',
  ): WmPage<T> {
    const start = (pageIndex - 1) * pageUnit;
    return {
      items: all.slice(start, start + pageUnit).map((x) => ({ ...x })),
      totalCount: all.length,
      pageIndex,
      pageUnit,
      timeZone,
    };
  }

  private async enter<T>(
    method: FakeMethod,
    siteId: string,
    args: unknown[],
    run: (s: SiteData) => T,
  ): Promise<T> {
    const call: FakeCall = { method, siteId, args };
    const index = this.calls.length;
    this.calls.push(call);
    await Promise.resolve();
    let fault: FakeFault | undefined;
    for (const h of this.hooks) {
      fault = h(call, index);
      if (fault) break;
    }
    if (fault && 'before' in fault) throw fault.before;
    const result = run(this.site(siteId));
    if (fault && 'after' in fault) throw fault.after;
    return result;
  }
}
