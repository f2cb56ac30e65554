/**
 * The emulator's control surface: what tests, the demo and the benchmarks use to start it, seed
 * it, move jobs along and inject faults. The HTTP side implements both specs; this file is the
 * in-process side. Wire shapes live in the emulator's own route files, never here.
 */
import type { JobStatusCode, TaskStatusCode } from '../../src/api/codes.js';
import type { EmulatorBehaviours } from './behaviours.js';
import type { NewLicenseRec } from './svc-state.js';

export interface EmulatorOptions {
  /** Default 127.0.0.1. Only loopback is allowed. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Seed demo data (accounts, sites, recipients, jobs, DRM records). Default true. */
  seed?: boolean;
  /** Fixed latency added to every call, ms. Default 0. */
  latencyMs?: number;
  /** Clock used for reg/update times and token/JWT expiry. Default Date.now. */
  now?: () => number;
  /** Lifetime of an issued watermarking token, ms. Default 1 hour. */
  tokenTtlMs?: number;
  /**
   * Path spelling of Service endpoint 14 (the spec shows `cid-License`, one sample `cid-drmLicense`).
   * Default 'cid-License'; the other spelling answers 404 unless 'both'.
   */
  cidLicensePath?: 'cid-License' | 'cid-drmLicense' | 'both';
  /** Claims the Service API JWT must carry. Defaults: sub ServiceAPI, aud AUDIENCE, iss Service. */
  serviceJwt?: { subject?: string; audience?: string; issuer?: string };
  /** Deviations from the specs a real service shows (behaviours.ts); default none. */
  behaviours?: EmulatorBehaviours;
}

/** Credentials the seeded emulator accepts (printed by `npm run emulator`). */
export interface DemoCredentials {
  siteIds: string[];
  defaultSiteId: string;
  watermarking: { accountId: string; accessKey: string };
  service: { accountId: string; accountSeq: string; secretKey: string };
}

export interface FaultRule {
  /** Which requests: a substring or RegExp matched against "METHOD /path" (path without base prefix
   * but with the /wm or /svc mount, e.g. "GET /wm/api/job/AB12"). Default: all. */
  match?: string | RegExp;
  /** How many matching requests this rule applies to; default Infinity. */
  times?: number;
  /** Let this many matching requests through untouched first (then `times` applies), e.g. to
   * fail only the read that follows a change: default 0. */
  skip?: number;
  /** Add this much latency, ms. */
  latencyMs?: number;
  /** Answer with this HTTP status (e.g. 500, 503, 429, 401, 403) and an empty/plain body. */
  status?: number;
  /** With status 429/503: the Retry-After header value in seconds. */
  retryAfterSeconds?: number;
  /** Destroy the socket without answering. */
  drop?: boolean;
  /** Answer 200 with a body that is not JSON. */
  malformed?: boolean;
  /** Answer 200 with this JSON body instead of the real one (wrong envelope shapes...). */
  body?: unknown;
  /** Answer 200 with error_code/error_message envelope (a service-side failure). */
  errorCode?: { code: string; message: string };
}

export interface FaultInjector {
  add(rule: FaultRule): void;
  clear(): void;
}

export interface EmulatorJobTaskSpec {
  /** Recipient by dwmId or by name (resolved case-insensitively; created when missing). */
  recipient: number | string;
}

export interface EmulatorJob {
  jobId: number;
  siteId: string;
  contentId: string;
  status: JobStatusCode;
  regTimeMs: number;
  updateTimeMs: number;
}

export interface EmulatorControl {
  /** Add a watermarking account for sites (Basic credentials). */
  addWatermarkingAccount(acc: {
    accountId: string;
    accessKey: string;
    siteIds: string[];
    forbidden?: boolean;
  }): void;
  /** Add a Service API account (JWT secret). */
  addServiceAccount(acc: {
    accountId: string;
    accountSeq: string;
    secretKey: string;
    sites: { siteId: string; name: string }[];
    forbidden?: boolean;
  }): void;
  /** Create a job with tasks (status DM000 / TK000). Returns the job id. */
  createJob(
    siteId: string,
    contentId: string,
    tasks: EmulatorJobTaskSpec[],
    opts?: { regTimeMs?: number },
  ): number;
  /** Bulk-create jobs quickly (benchmarks): `count` jobs with `tasksPerJob` tasks each, all in `status`. */
  bulkCreateJobs(
    siteId: string,
    count: number,
    opts?: { status?: JobStatusCode; tasksPerJob?: number; contentPrefix?: string },
  ): number[];
  setJobStatus(siteId: string, jobId: number, status: JobStatusCode): void;
  setTaskStatus(
    siteId: string,
    jobId: number,
    dwmId: number,
    status: TaskStatusCode,
    cliErrorCode?: string,
  ): void;
  /** Move every task to TK002 (or TK005 for the listed dwmIds) and the job to DM500/DM600 accordingly. */
  finishJob(siteId: string, jobId: number, opts?: { failDwmIds?: number[]; cliErrorCode?: string }): void;
  getJob(siteId: string, jobId: number): EmulatorJob | undefined;
  /** Invalidate every issued watermarking token (next call gets 401 until a new token is issued). */
  expireTokens(): void;
  /** Watermarking tokens issued and Service API JWTs received (without the scheme word), newest last. */
  credentialsSeen(): string[];
  /** Counts of requests received, by "METHOD /mount/route-template" (e.g. "GET /wm/api/job/:siteId"). */
  requestCounts(): Record<string, number>;
  resetRequestCounts(): void;
  /** Recipient count for a site (tests of bulk registration). */
  recipientCount(siteId: string): number;
  /** Set the fixed latency for every call. */
  setLatency(ms: number): void;
  /** Switch the spec deviations (behaviours.ts); replaces the previous set. */
  setBehaviours(b: EmulatorBehaviours): void;
  behaviours(): EmulatorBehaviours;
  /** Move a pending (ST001) service status change request to approved (ST003). Throws when not pending. */
  approveRequest(siteId: string, requestId: string): void;
  /** Cancel a pending (ST001) request outside the bot (the vendor's console): ST002. */
  cancelRequestElsewhere(siteId: string, requestId: string): void;
  /** Decide an additional-site request (status e.g. "approved"/"rejected"; the assigned site id). */
  decideSiteRequest(accountId: string, seq: number, status: string, siteId?: string): void;
  /** Add license records to a site (alert and digest tests); returns how many were added. */
  addLicenses(siteId: string, records: NewLicenseRec[]): number;
  /** Certificate uploads recorded for a site (file names and sizes only, never contents). */
  certificateUploads(siteId: string): Array<{
    accountId: string;
    atMs: number;
    fpsCertFilename: string;
    fpsCertBytes: number;
    privateKeyFilename: string;
    privateKeyBytes: number;
    /** SHA-256 (hex) of the `ask` and `key_pw` received: never the values. */
    askSha256: string;
    keyPwSha256: string;
  }>;
  /** How many registration POSTs carried each name on a site (refused ones included). */
  registrationPostsPerName(siteId: string): Map<string, number>;
  /** Every site's data (jobs, recipients, requests, settings...) as JSON: compare two to see any upstream write. */
  stateSnapshot(): string;
}

export interface EmulatorHandle extends EmulatorControl {
  /** Watermarking API base URL, e.g. http://127.0.0.1:PORT/wm */
  wmBaseUrl: string;
  /** Service API base URL, e.g. http://127.0.0.1:PORT/svc (paths /api/v2/... follow). */
  serviceBaseUrl: string;
  port: number;
  demo: DemoCredentials;
  faults: FaultInjector;
  close(): Promise<void>;
}
