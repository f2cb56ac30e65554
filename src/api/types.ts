/**
 * The API module's public contract: credentials, domain types (camelCase, times already turned
 * into instants) and the two client interfaces. Layers above (ops, slack, watch) only ever see
 * these types, never the wire field names.
 */
import type {
  DrmType,
  JobStatusCode,
  LicenseSearchCondition,
  MemberGroupSeq,
  MemberStatusCode,
  ProductStatusCode,
  RegistrableRequestType,
  RequestStatusCode,
  ServiceCode,
  TaskStatusCode,
} from './codes.js';
import type { OriginPolicy } from './origins.js';

// ---------------------------------------------------------------------------------------------
// Credentials (per workspace; one process serves many workspaces and sites at once)
// ---------------------------------------------------------------------------------------------

export interface WatermarkingCredentials {
  accountId: string;
  accessKey: string;
  /** e.g. https://wm.example.com or http://127.0.0.1:4010/wm (a path prefix is allowed). */
  baseUrl: string;
}

export interface ServiceApiCredentials {
  accountId: string;
  accountSeq: string;
  /** HS256 secret (<SERVICE_API_KEY>). */
  secretKey: string;
  /** Base address; paths /api/v2/... are appended. */
  baseUrl: string;
}

export interface WorkspaceCredentials {
  siteIds: string[];
  defaultSiteId: string;
  watermarking?: WatermarkingCredentials;
  service?: ServiceApiCredentials;
}

// ---------------------------------------------------------------------------------------------
// Shared shapes
// ---------------------------------------------------------------------------------------------

/** A time from the service: the raw string as sent, and the instant it denotes (null if unparseable). */
export interface TimeValue {
  raw: string;
  /** Epoch milliseconds, or null when the string was empty or not a recognised shape. */
  epochMs: number | null;
}

/** One page of a watermarking list (jobs, job tasks, recipient search). */
export interface WmPage<T> {
  items: T[];
  /** total_count; when the service left it out, only the items seen so far (`totalUnknown`). */
  totalCount: number;
  /** True when the service left total_count out: paging must not stop at `totalCount`. */
  totalUnknown?: boolean;
  pageIndex: number;
  pageUnit: number;
  /** The time_zone the service applied, normalised to "+hh:mm"/"-hh:mm". */
  timeZone: string;
  /**
   * The server's clock minus the bot's when it answered (its Date header), ms; absent without
   * one. The watcher allows for a service clock behind the bot's with it.
   */
  serverClockSkewMs?: number;
}

/** One page of a Service API DRM list. */
export interface SvcPage<T> {
  items: T[];
  /** `count` of the response when present, otherwise items.length. */
  count: number;
  pageIndex: number;
  pageUnit: number;
}

export interface PageQuery {
  /** 1..1000, default 25. */
  pageUnit?: number;
  /** >= 1, default 1. */
  pageIndex?: number;
}

/** yyyy-MM-dd date bounds. */
export interface DateRange {
  from?: string;
  to?: string;
}

// ---------------------------------------------------------------------------------------------
// Watermarking domain
// ---------------------------------------------------------------------------------------------

export interface Job {
  jobId: number;
  contentId: string;
  status: JobStatusCode;
  regTime: TimeValue;
  updateTime: TimeValue;
}

export interface JobTask {
  dwmId: number;
  recipient: string;
  description: string;
  status: TaskStatusCode;
  cliErrorCode: string;
  /** status TK005 or cliErrorCode other than "0" (zero-padded "0000" counts as "0"; "" is not a failure). */
  failed: boolean;
  regTime: TimeValue;
  updateTime: TimeValue;
}

export interface Recipient {
  dwmId: number;
  name: string;
  description: string;
  regTime: TimeValue;
  /** Only the detail call returns it. */
  updateTime?: TimeValue;
}

export interface JobSearchQuery extends PageQuery, DateRange {
  contentId?: string;
  statuses?: JobStatusCode[];
  /** "+hh:mm" / "-hh:mm"; default "+00:00". */
  timeZone?: string;
}

export interface RecipientSearchQuery extends PageQuery, DateRange {
  keywords?: string[];
  timeZone?: string;
}

export interface NewRecipient {
  name: string;
  description?: string;
}

export interface RecipientPatch {
  name?: string;
  description?: string;
}

export interface ModifiedRecipient {
  dwmId: number;
  updateTime: TimeValue;
}

export interface TimeZoneOption {
  timeZone?: string;
}

export interface WatermarkingClient {
  /** 4.1: issue (or return the cached) token for the site. Never returns the token text to callers. */
  verify(siteId: string): Promise<void>;
  /** 4.2 */
  searchJobs(siteId: string, query?: JobSearchQuery): Promise<WmPage<Job>>;
  /** 4.3 */
  getJob(siteId: string, jobId: number, opts?: TimeZoneOption): Promise<Job>;
  /** 4.4 */
  getJobTasks(siteId: string, jobId: number, opts?: TimeZoneOption): Promise<WmPage<JobTask>>;
  /** 4.5 */
  searchRecipients(siteId: string, query?: RecipientSearchQuery): Promise<WmPage<Recipient>>;
  /** 4.6 */
  getRecipient(siteId: string, dwmId: number, opts?: TimeZoneOption): Promise<Recipient>;
  /** 4.7: at most 150 recipients; validated before sending. */
  registerRecipients(siteId: string, recipients: NewRecipient[]): Promise<Recipient[]>;
  /** 4.8 */
  modifyRecipient(siteId: string, dwmId: number, patch: RecipientPatch): Promise<ModifiedRecipient>;
}

// ---------------------------------------------------------------------------------------------
// Service API domain
// ---------------------------------------------------------------------------------------------

export interface SiteProduct {
  serviceCode: ServiceCode;
  status: ProductStatusCode;
}

export interface Site {
  siteId: string;
  name: string;
  products: SiteProduct[];
}

export interface AdditionalSiteRequest {
  seq: number;
  accountId: string;
  siteId: string;
  serviceName: string;
  status: string;
  updateTime: TimeValue;
  regTime: TimeValue;
}

export interface AdditionalSiteRequestQuery extends PageQuery, DateRange {
  reqStatus?: string;
  searchType?: 'account_id' | 'site_id';
  searchKeyword?: string;
}

export interface SubMember {
  groupName: string;
  groupSeq: number;
  memberSeq: number;
  email: string;
  status: MemberStatusCode;
  /** YYYY-MM-DD */
  regDate: string;
}

export interface SubMemberUpdate {
  memberSeq: number;
  status?: MemberStatusCode;
  groupSeq?: MemberGroupSeq;
}

/** A service status change request (plan request). */
export interface StatusRequest {
  siteId: string;
  /** req_group_id */
  requestId: string;
  /** reg_type: SM001..SM004 (kept as string: the service may send other codes). */
  type: string;
  message: string;
  /** reg_status; absent on the register response (a new request is ST001). */
  status?: RequestStatusCode;
  /** reg_id: who registered it. */
  registeredBy: string;
  regTime: TimeValue;
  updateTime?: TimeValue;
}

export interface NewStatusRequest {
  serviceCode: ServiceCode;
  requestType: RegistrableRequestType;
  message?: string;
}

export interface CancelStatusRequest {
  serviceCode: ServiceCode;
  requestId: string;
}

export interface DrmListQuery extends PageQuery, DateRange {}

export interface LicenseQuery extends DrmListQuery {
  searchStatus?: 'success' | 'fail';
  searchCondition?: LicenseSearchCondition;
  searchKeyword?: string;
}

export interface LicenseRecord {
  cid: string;
  status: 'success' | 'fail';
  errorCode: string;
  drmType: DrmType | string;
  userId: string;
  deviceId: string;
  deviceModel: string;
  licenseType: string;
  platformName: string;
  regTime: TimeValue;
}

export interface DrmUser {
  userId: string;
  licenseCount: number;
  deviceCount: number;
  success: number;
  fail: number;
}

export interface DrmDevice {
  deviceId: string;
  deviceModel: string;
  licenseCount: number;
  success: number;
  fail: number;
}

export interface CidLicense {
  cid: string;
  licenseCount: number;
}

export interface PackagingRecord {
  siteId: string;
  cid: string;
  track: string;
  createdTime: TimeValue;
  updateTime: TimeValue;
}

export interface PackagingQuery extends DateRange {
  searchCondition?: LicenseSearchCondition;
  searchKeyword?: string;
  /** Keyset cursor: both set, or neither. */
  lastCreatedTimeCid?: string;
  lastUpdateTime?: string;
}

export interface DrmSettings {
  siteId: string;
  siteKey: string;
  accessKey: string;
  licenseCallbackUrl: string;
  packageCallbackUrl: string;
  kmsToken: string;
  tokenDuration: number;
  iv: string;
}

export interface DrmSettingsUpdate {
  licenseCallbackUrl?: string;
  packageCallbackUrl?: string;
  tokenDuration?: number;
}

export interface UploadedFile {
  filename: string;
  data: Uint8Array;
}

export interface FpsCertUpload {
  /** Application secret key. */
  ask: string;
  /** Private key password, at most 32 bytes. */
  keyPw: string;
  fpsCert: UploadedFile;
  privateKey: UploadedFile;
}

export interface MonthlyStats {
  licenseCount: number;
  userCount: number;
  deviceCount: number;
  targetDate: string;
}

export interface ServiceClient {
  /** Signs a JWT and calls the site list: a cheap live check of the credentials. */
  verify(): Promise<void>;
  /** 1 */
  getSites(): Promise<Site[]>;
  /** 2: returns the request seq. */
  requestAdditionalSite(serviceName: string): Promise<{ seq: number }>;
  /** 3 */
  listAdditionalSiteRequests(query?: AdditionalSiteRequestQuery): Promise<SvcPage<AdditionalSiteRequest>>;
  /** 4 */
  listSubMembers(query?: PageQuery): Promise<SvcPage<SubMember>>;
  /** 5 */
  createSubMember(email: string, groupSeq?: MemberGroupSeq): Promise<{ memberSeq: number }>;
  /** 6 */
  resetSubMemberPassword(memberSeq: number): Promise<void>;
  /** 7 */
  updateSubMember(update: SubMemberUpdate): Promise<void>;
  /** 8 */
  getLatestStatusRequest(siteId: string, serviceCode: ServiceCode): Promise<StatusRequest | null>;
  /** 9 */
  registerStatusRequest(siteId: string, req: NewStatusRequest): Promise<StatusRequest>;
  /** 10 */
  cancelStatusRequest(siteId: string, req: CancelStatusRequest): Promise<StatusRequest>;
  /** 11 */
  listLicenses(siteId: string, query?: LicenseQuery): Promise<SvcPage<LicenseRecord>>;
  /** 12 */
  listUsers(siteId: string, query?: DrmListQuery & { searchKeyword?: string }): Promise<SvcPage<DrmUser>>;
  /** 13 */
  listDevices(siteId: string, query?: DrmListQuery & { searchKeyword?: string }): Promise<SvcPage<DrmDevice>>;
  /** 14 */
  listCidLicenses(
    siteId: string,
    query?: DrmListQuery & { searchStatus?: 'success' | 'fail' },
  ): Promise<SvcPage<CidLicense>>;
  /** 15 */
  listPackaging(siteId: string, query?: PackagingQuery): Promise<SvcPage<PackagingRecord>>;
  /** 16 */
  getSettings(siteId: string): Promise<DrmSettings>;
  /** 17 */
  updateSettings(siteId: string, update: DrmSettingsUpdate): Promise<void>;
  /** 18 */
  uploadFpsCert(siteId: string, upload: FpsCertUpload): Promise<void>;
  /** 19: targetDate yyyy-MM-dd */
  getMonthlyStats(siteId: string, targetDate: string): Promise<MonthlyStats>;
}

// ---------------------------------------------------------------------------------------------
// Factory (src/api/index.ts: createApi). One per process: shares the pooled HTTP dispatchers
// and the token/JWT caches across every workspace and site.
// ---------------------------------------------------------------------------------------------

export interface ApiFactory {
  watermarking(creds: WatermarkingCredentials): WatermarkingClient;
  service(creds: ServiceApiCredentials): ServiceClient;
  /**
   * The upstream allow-list the factory's HTTP layer enforces (undefined: unrestricted). Setup
   * checks URLs with it before the live check (src/ops/setup.ts).
   */
  readonly originPolicy?: OriginPolicy | undefined;
  /** Close every pooled connection. */
  close(): Promise<void>;
}
