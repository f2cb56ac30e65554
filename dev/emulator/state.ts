/**
 * The emulator's in-memory state, independent of HTTP. Indexed for scale (100,000 jobs, 1,000
 * sites): per-site Maps of recipients (by id and by case-folded name), jobs (by id, by status and
 * by content id), and a per-recipient count of pre-embedding tasks still in TK000/TK001.
 */
import { randomBytes } from 'node:crypto';
import {
  JOB_STATUS_CODES,
  type JobStatusCode,
  type ProductStatusCode,
  type ServiceCode,
  TASK_IN_FLIGHT,
  type TaskStatusCode,
} from '../../src/api/codes.js';
import { checkRecipientDescription, checkRecipientName, LIMITS, nameKey } from '../../src/api/validate.js';
import { EmuError, invalid } from './errors.js';
import { newSiteSvcData, type SiteSvcData, type SvcAccount } from './svc-state.js';
import type { EmulatorJob, EmulatorJobTaskSpec } from './types.js';

export interface RecipientRec {
  dwmId: number;
  siteId: string;
  name: string;
  description: string;
  regTimeMs: number;
  updateTimeMs: number;
  /** Tasks of this recipient in TK000/TK001 (pre-embedding in progress): PUT is refused while > 0. */
  activeTasks: number;
}

export interface TaskRec {
  dwmId: number;
  status: TaskStatusCode;
  cliErrorCode: string;
  regTimeMs: number;
  updateTimeMs: number;
}

export interface JobRec {
  jobId: number;
  siteId: string;
  contentId: string;
  status: JobStatusCode;
  regTimeMs: number;
  updateTimeMs: number;
  tasks: TaskRec[];
}

export interface SiteProductRec {
  serviceCode: ServiceCode;
  statusCode: ProductStatusCode;
}

export interface SiteState {
  siteId: string;
  name: string;
  products: SiteProductRec[];
  recipients: Map<number, RecipientRec>;
  recipientsByKey: Map<string, RecipientRec>;
  jobs: Map<number, JobRec>;
  jobsByStatus: Map<JobStatusCode, Set<JobRec>>;
  jobsByContent: Map<string, Set<JobRec>>;
  svc: SiteSvcData;
}

export interface WmAccount {
  accountId: string;
  accessKey: string;
  siteIds: Set<string>;
  forbidden: boolean;
}

interface TokenRec {
  accountId: string;
  siteId: string;
  expiresAtMs: number;
}

const IN_FLIGHT_TASK = new Set<TaskStatusCode>(TASK_IN_FLIGHT);

/**
 * Order of the statuses along the only path the emulator lets a job or task take:
 * DM000 READY -> DM001 PREPROCESSING -> DM500 COMPLETED | DM600 ERROR, and
 * TK000 READY -> TK001 PROGRESSING -> TK002 COMPLETE | TK005 FAIL. The watermarking spec shows no
 * transitions ("the API has no operation that changes a job or task status"); these are the ones
 * the status names imply. Skipping a step is allowed (a poller can miss a state anyway, and a job
 * may fail before preprocessing); going back, or leaving an end state, is a test-setup error.
 */
const JOB_RANK: Record<JobStatusCode, number> = { DM000: 0, DM001: 1, DM500: 2, DM600: 2 };
const TASK_RANK: Record<TaskStatusCode, number> = { TK000: 0, TK001: 1, TK002: 2, TK005: 2 };

function checkMove<C extends string>(what: string, rank: Record<C, number>, from: C, to: C): void {
  if (from === to) return;
  if (rank[to] < rank[from] || rank[from] === 2) {
    throw new Error(`emulator: ${what} cannot move from ${from} to ${to} (statuses only move forward).`);
  }
}

export interface StateOptions {
  now: () => number;
  tokenTtlMs: number;
}

export class EmulatorState {
  readonly sites = new Map<string, SiteState>();
  readonly wmAccounts = new Map<string, WmAccount>();
  readonly svcAccounts = new Map<string, SvcAccount>();
  private readonly tokens = new Map<string, TokenRec>();
  private nextJobId = 1001;
  private nextDwmId = 10001;
  private bulkBatch = 0;
  readonly now: () => number;
  tokenTtlMs: number;

  constructor(opts: StateOptions) {
    this.now = opts.now;
    this.tokenTtlMs = opts.tokenTtlMs;
  }

  // ------------------------------------------------------------------ sites and accounts

  ensureSite(siteId: string, name?: string): SiteState {
    let s = this.sites.get(siteId);
    if (!s) {
      s = {
        siteId,
        name: name ?? `Site ${siteId}`,
        products: [
          { serviceCode: 'PD001', statusCode: 'SE000' },
          { serviceCode: 'PD002', statusCode: 'SE000' },
        ],
        recipients: new Map(),
        recipientsByKey: new Map(),
        jobs: new Map(),
        jobsByStatus: new Map(JOB_STATUS_CODES.map((c) => [c, new Set<JobRec>()])),
        jobsByContent: new Map(),
        svc: newSiteSvcData(siteId),
      };
      this.sites.set(siteId, s);
    } else if (name) {
      s.name = name;
    }
    return s;
  }

  site(siteId: string): SiteState | undefined {
    return this.sites.get(siteId);
  }

  /** The site or a Error (for control methods: a programming error in a test, not an API answer). */
  requireSite(siteId: string): SiteState {
    const s = this.sites.get(siteId);
    if (!s) throw new Error(`emulator: unknown site ${siteId}`);
    return s;
  }

  addWmAccount(acc: { accountId: string; accessKey: string; siteIds: string[]; forbidden?: boolean }): void {
    for (const id of acc.siteIds) this.ensureSite(id);
    const existing = this.wmAccounts.get(acc.accountId);
    this.wmAccounts.set(acc.accountId, {
      accountId: acc.accountId,
      accessKey: acc.accessKey,
      siteIds: new Set([...(existing?.siteIds ?? []), ...acc.siteIds]),
      forbidden: acc.forbidden ?? false,
    });
  }

  addSvcAccount(acc: {
    accountId: string;
    accountSeq: string;
    secretKey: string;
    sites: { siteId: string; name: string }[];
    forbidden?: boolean;
  }): void {
    for (const s of acc.sites) this.ensureSite(s.siteId, s.name);
    const existing = this.svcAccounts.get(acc.accountId);
    const siteIds = [...(existing?.siteIds ?? [])];
    for (const s of acc.sites) if (!siteIds.includes(s.siteId)) siteIds.push(s.siteId);
    this.svcAccounts.set(acc.accountId, {
      accountId: acc.accountId,
      accountSeq: acc.accountSeq,
      secretKey: acc.secretKey,
      siteIds,
      forbidden: acc.forbidden ?? false,
      siteRequests: existing?.siteRequests ?? [],
      members: existing?.members ?? [],
    });
  }

  private counters = { reqGroup: 240_001, memberSeq: 501, siteRequestSeq: 71 };

  /** Service status change request ids: "RG" + number. */
  nextRequestGroupId(): string {
    return `RG${this.counters.reqGroup++}`;
  }
  nextMemberSeq(): number {
    return this.counters.memberSeq++;
  }
  nextSiteRequestSeq(): number {
    return this.counters.siteRequestSeq++;
  }

  /** Control: ST001 -> ST003 (the provider approving a request). */
  approveRequest(siteId: string, requestId: string): void {
    const req = this.requireSite(siteId).svc.statusRequests.find((r) => r.reqGroupId === requestId);
    if (!req) throw new Error(`emulator: unknown request ${requestId} on site ${siteId}`);
    if (req.regStatus !== 'ST001')
      throw new Error(`emulator: request ${requestId} is ${req.regStatus}, not ST001`);
    req.regStatus = 'ST003';
    req.updateDtMs = this.now();
  }

  // ------------------------------------------------------------------ watermarking tokens

  issueToken(accountId: string, siteId: string): string {
    const token = `Bearer ${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { accountId, siteId, expiresAtMs: this.now() + this.tokenTtlMs });
    this.rememberCredential(token.slice('Bearer '.length));
    return token;
  }

  /**
   * Bearer credentials the emulator issued (watermarking tokens) or received (Service API JWTs),
   * newest last, at most 1,000: the security tests check none of them leaks into logs, Slack or
   * the store.
   */
  readonly credentialsSeen: string[] = [];

  rememberCredential(value: string): void {
    if (this.credentialsSeen.includes(value)) return;
    this.credentialsSeen.push(value);
    if (this.credentialsSeen.length > 1000) this.credentialsSeen.shift();
  }

  /** The token's record when it is known and not expired. */
  resolveToken(authorization: string): TokenRec | undefined {
    const norm = authorization.replace(/^bearer\s+/i, 'Bearer ');
    const rec = this.tokens.get(norm);
    if (!rec) return undefined;
    // Expired tokens are kept (the test clock may move back); only expireTokens() removes them.
    return this.now() >= rec.expiresAtMs ? undefined : rec;
  }

  expireTokens(): void {
    this.tokens.clear();
  }

  // ------------------------------------------------------------------ recipients

  /** Rule 4: a name in any case resolves to the originally registered recipient. */
  findRecipientByName(site: SiteState, name: string): RecipientRec | undefined {
    return site.recipientsByKey.get(nameKey(name));
  }

  /**
   * Endpoint 4.7. The whole request is refused on any problem (nothing is registered):
   * invalidParameter for rule violations, tooManyRecipients above 150, duplicateRecipient when a
   * name is registered already (any case) or repeated in the request.
   */
  /** How many registration POSTs carried each name, per site ("SITE:name" -> count). */
  readonly registrationPosts = new Map<string, number>();

  countRegistrationPost(siteId: string, name: string): void {
    const k = `${siteId}:${name}`;
    this.registrationPosts.set(k, (this.registrationPosts.get(k) ?? 0) + 1);
  }

  registerRecipients(site: SiteState, input: unknown): RecipientRec[] {
    if (!Array.isArray(input)) throw invalid('recipients: required; send a list of {name, description}.');
    if (input.length === 0) throw invalid('recipients: the list is empty; send at least one recipient.');
    if (input.length > LIMITS.recipientsPerRegistration) {
      throw new EmuError(
        'tooManyRecipients',
        `recipients: ${input.length} recipients sent; at most ${LIMITS.recipientsPerRegistration} may be registered per request.`,
      );
    }
    const items: { name: string; description: string }[] = [];
    const problems: string[] = [];
    input.forEach((raw: unknown, i) => {
      if (!raw || typeof raw !== 'object') {
        problems.push(`recipients[${i}]: not an object with a name.`);
        return;
      }
      const r = raw as Record<string, unknown>;
      if (typeof r.name !== 'string') {
        problems.push(`recipients[${i}].name: required, a string.`);
        return;
      }
      if (r.description !== undefined && r.description !== null && typeof r.description !== 'string') {
        problems.push(`recipients[${i}].description: must be a string.`);
        return;
      }
      const description = typeof r.description === 'string' ? r.description : '';
      const nf = checkRecipientName(r.name);
      if (nf) problems.push(`recipients[${i}].name: ${nf}`);
      const df = checkRecipientDescription(description);
      if (df) problems.push(`recipients[${i}].description: ${df}`);
      items.push({ name: r.name, description });
    });
    if (problems.length > 0) throw invalid(problems.slice(0, 10).join(' '));
    const seen = new Set<string>();
    const dups: string[] = [];
    for (const it of items) {
      const key = nameKey(it.name);
      if (seen.has(key) || site.recipientsByKey.has(key)) dups.push(it.name);
      seen.add(key);
    }
    if (dups.length > 0) {
      throw new EmuError(
        'duplicateRecipient',
        `Recipient name already registered or repeated: ${dups.join(', ')}`,
      );
    }
    return items.map((it) => this.addRecipient(site, it.name, it.description));
  }

  addRecipient(site: SiteState, name: string, description: string, regTimeMs = this.now()): RecipientRec {
    const rec: RecipientRec = {
      dwmId: this.nextDwmId++,
      siteId: site.siteId,
      name,
      description,
      regTimeMs,
      updateTimeMs: regTimeMs,
      activeTasks: 0,
    };
    site.recipients.set(rec.dwmId, rec);
    site.recipientsByKey.set(nameKey(name), rec);
    return rec;
  }

  /** Endpoint 4.8. */
  modifyRecipient(site: SiteState, dwmId: number, body: unknown): RecipientRec {
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const hasName = b.name !== undefined && b.name !== null;
    const hasDesc = b.description !== undefined && b.description !== null;
    if (!hasName && !hasDesc) throw invalid('Send at least one of name or description.');
    if (hasName && typeof b.name !== 'string') throw invalid('name: must be a string.');
    if (hasDesc && typeof b.description !== 'string') throw invalid('description: must be a string.');
    const rec = site.recipients.get(dwmId);
    if (!rec) throw new EmuError('recipientNotFound', `Recipient ${dwmId} not found on site ${site.siteId}.`);
    const name = hasName ? (b.name as string) : undefined;
    const description = hasDesc ? (b.description as string) : undefined;
    if (name !== undefined) {
      const f = checkRecipientName(name);
      if (f) throw invalid(`name: ${f}`);
    }
    if (description !== undefined) {
      const f = checkRecipientDescription(description);
      if (f) throw invalid(`description: ${f}`);
    }
    if (rec.activeTasks > 0) {
      throw new EmuError(
        'recipientInUse',
        `Recipient ${dwmId} is used by a pre-embedding task in progress; modify it when the task ends.`,
      );
    }
    if (name !== undefined) {
      const other = site.recipientsByKey.get(nameKey(name));
      if (other && other.dwmId !== rec.dwmId) {
        throw new EmuError('duplicateRecipient', `Recipient name already registered: ${other.name}`);
      }
      site.recipientsByKey.delete(nameKey(rec.name));
      rec.name = name;
      site.recipientsByKey.set(nameKey(name), rec);
    }
    if (description !== undefined) rec.description = description;
    rec.updateTimeMs = this.now();
    return rec;
  }

  /** Endpoint 4.5: any keyword matches (case-insensitive substring of the name); newest first. */
  searchRecipients(site: SiteState, q: { keywords: string[]; fromMs: number; toMs: number }): RecipientRec[] {
    const kws = q.keywords.map((k) => k.toLowerCase()).filter((k) => k.length > 0);
    const out: RecipientRec[] = [];
    for (const r of site.recipients.values()) {
      if (r.regTimeMs < q.fromMs || r.regTimeMs > q.toMs) continue;
      if (kws.length > 0) {
        const n = r.name.toLowerCase();
        if (!kws.some((k) => n.includes(k))) continue;
      }
      out.push(r);
    }
    return out.sort((a, b) => b.regTimeMs - a.regTimeMs || b.dwmId - a.dwmId);
  }

  // ------------------------------------------------------------------ jobs

  private indexJob(site: SiteState, job: JobRec): void {
    site.jobs.set(job.jobId, job);
    site.jobsByStatus.get(job.status)?.add(job);
    let set = site.jobsByContent.get(job.contentId);
    if (!set) {
      set = new Set();
      site.jobsByContent.set(job.contentId, set);
    }
    set.add(job);
  }

  private resolveTaskRecipient(site: SiteState, spec: EmulatorJobTaskSpec, regTimeMs: number): RecipientRec {
    if (typeof spec.recipient === 'number') {
      const r = site.recipients.get(spec.recipient);
      if (!r) throw new Error(`emulator: recipient ${spec.recipient} not found on site ${site.siteId}`);
      return r;
    }
    const found = this.findRecipientByName(site, spec.recipient);
    if (found) return found;
    const f = checkRecipientName(spec.recipient);
    if (f) throw new Error(`emulator: recipient name "${spec.recipient}": ${f}`);
    return this.addRecipient(site, spec.recipient, '', regTimeMs);
  }

  createJob(
    siteId: string,
    contentId: string,
    tasks: EmulatorJobTaskSpec[],
    opts?: { regTimeMs?: number; status?: JobStatusCode; taskStatus?: TaskStatusCode },
  ): JobRec {
    const site = this.requireSite(siteId);
    const regTimeMs = opts?.regTimeMs ?? this.now();
    const job: JobRec = {
      jobId: this.nextJobId++,
      siteId,
      contentId,
      status: opts?.status ?? 'DM000',
      regTimeMs,
      updateTimeMs: regTimeMs,
      tasks: [],
    };
    const seen = new Set<number>();
    for (const spec of tasks) {
      const r = this.resolveTaskRecipient(site, spec, regTimeMs);
      if (seen.has(r.dwmId)) continue;
      seen.add(r.dwmId);
      const status = opts?.taskStatus ?? 'TK000';
      job.tasks.push({ dwmId: r.dwmId, status, cliErrorCode: '0', regTimeMs, updateTimeMs: regTimeMs });
      if (IN_FLIGHT_TASK.has(status)) r.activeTasks += 1;
    }
    this.indexJob(site, job);
    return job;
  }

  bulkCreateJobs(
    siteId: string,
    count: number,
    opts?: { status?: JobStatusCode; tasksPerJob?: number; contentPrefix?: string },
  ): number[] {
    const site = this.requireSite(siteId);
    const status = opts?.status ?? 'DM000';
    const tasksPerJob = Math.max(0, opts?.tasksPerJob ?? 1);
    const batch = ++this.bulkBatch;
    const prefix = opts?.contentPrefix ?? `BULK${batch}-`;
    const pool = [...site.recipients.values()].slice(0, Math.max(tasksPerJob, 1));
    for (let i = pool.length; i < tasksPerJob; i++) {
      pool.push(this.addRecipient(site, `bulk-recipient-${batch}-${i + 1}`, 'bulk'));
    }
    const taskStatus: TaskStatusCode =
      status === 'DM000' ? 'TK000' : status === 'DM001' ? 'TK001' : status === 'DM500' ? 'TK002' : 'TK005';
    const now = this.now();
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const regTimeMs = now - (count - i) * 1000;
      const job: JobRec = {
        jobId: this.nextJobId++,
        siteId,
        contentId: `${prefix}${String(i + 1).padStart(6, '0')}`,
        status,
        regTimeMs,
        updateTimeMs: regTimeMs,
        tasks: [],
      };
      for (let t = 0; t < tasksPerJob; t++) {
        const r = pool[t] as RecipientRec;
        job.tasks.push({
          dwmId: r.dwmId,
          status: taskStatus,
          cliErrorCode: taskStatus === 'TK005' ? 'E-417' : '0',
          regTimeMs,
          updateTimeMs: regTimeMs,
        });
        if (IN_FLIGHT_TASK.has(taskStatus)) r.activeTasks += 1;
      }
      this.indexJob(site, job);
      ids.push(job.jobId);
    }
    return ids;
  }

  requireJob(siteId: string, jobId: number): JobRec {
    const job = this.requireSite(siteId).jobs.get(jobId);
    if (!job) throw new Error(`emulator: unknown job ${jobId} on site ${siteId}`);
    return job;
  }

  setJobStatus(siteId: string, jobId: number, status: JobStatusCode): void {
    const site = this.requireSite(siteId);
    const job = this.requireJob(siteId, jobId);
    checkMove(`job ${jobId}`, JOB_RANK, job.status, status);
    if (job.status !== status) {
      site.jobsByStatus.get(job.status)?.delete(job);
      job.status = status;
      site.jobsByStatus.get(status)?.add(job);
    }
    job.updateTimeMs = this.now();
  }

  /** Updates a task's status (and update_time); the job status is left to the caller. */
  setTaskStatus(
    siteId: string,
    jobId: number,
    dwmId: number,
    status: TaskStatusCode,
    cliErrorCode?: string,
  ): void {
    const site = this.requireSite(siteId);
    const job = this.requireJob(siteId, jobId);
    const task = job.tasks.find((t) => t.dwmId === dwmId);
    if (!task) throw new Error(`emulator: job ${jobId} has no task for recipient ${dwmId}`);
    checkMove(`task ${jobId}/${dwmId}`, TASK_RANK, task.status, status);
    const rec = site.recipients.get(dwmId);
    const wasActive = IN_FLIGHT_TASK.has(task.status);
    const isActive = IN_FLIGHT_TASK.has(status);
    if (rec && wasActive !== isActive) rec.activeTasks += isActive ? 1 : -1;
    task.status = status;
    task.cliErrorCode = cliErrorCode ?? (status === 'TK005' ? 'E-500' : '0');
    const now = this.now();
    task.updateTimeMs = now;
    job.updateTimeMs = now;
  }

  finishJob(siteId: string, jobId: number, opts?: { failDwmIds?: number[]; cliErrorCode?: string }): void {
    const job = this.requireJob(siteId, jobId);
    const fail = new Set(opts?.failDwmIds ?? []);
    for (const t of job.tasks) {
      if (fail.has(t.dwmId))
        this.setTaskStatus(siteId, jobId, t.dwmId, 'TK005', opts?.cliErrorCode ?? 'E-417');
      else this.setTaskStatus(siteId, jobId, t.dwmId, 'TK002', '0');
    }
    this.setJobStatus(siteId, jobId, fail.size > 0 ? 'DM600' : 'DM500');
  }

  toEmulatorJob(job: JobRec): EmulatorJob {
    return {
      jobId: job.jobId,
      siteId: job.siteId,
      contentId: job.contentId,
      status: job.status,
      regTimeMs: job.regTimeMs,
      updateTimeMs: job.updateTimeMs,
    };
  }

  /**
   * Endpoint 4.2. `content_id` is an exact match (the spec says "content ID to match"; one job per
   * content ID). Candidates come from the narrowest index (content id, then status sets); newest first.
   */
  searchJobs(
    site: SiteState,
    q: { contentId?: string; statuses: JobStatusCode[]; fromMs: number; toMs: number },
  ): JobRec[] {
    let candidates: Iterable<JobRec>;
    const statusSet = q.statuses.length > 0 ? new Set(q.statuses) : undefined;
    if (q.contentId !== undefined) {
      candidates = site.jobsByContent.get(q.contentId) ?? [];
    } else if (statusSet) {
      const lists: JobRec[] = [];
      for (const s of statusSet) for (const j of site.jobsByStatus.get(s) ?? []) lists.push(j);
      candidates = lists;
    } else {
      candidates = site.jobs.values();
    }
    const out: JobRec[] = [];
    for (const j of candidates) {
      if (statusSet && !statusSet.has(j.status)) continue;
      if (j.regTimeMs < q.fromMs || j.regTimeMs > q.toMs) continue;
      out.push(j);
    }
    return out.sort((a, b) => b.regTimeMs - a.regTimeMs || b.jobId - a.jobId);
  }
}
