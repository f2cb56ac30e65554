/**
 * Service API records held by the emulator (per site and per account). The HTTP side lives in
 * svc-routes.ts; seeding in seed.ts.
 */
import { randomBytes } from 'node:crypto';
import type {
  DrmType,
  MemberGroupSeq,
  MemberStatusCode,
  RequestStatusCode,
  ServiceCode,
} from '../../src/api/codes.js';

export interface StatusRequestRec {
  siteId: string;
  serviceCode: ServiceCode;
  reqGroupId: string;
  regType: string;
  regMessage: string;
  regStatus: RequestStatusCode;
  regId: string;
  regDtMs: number;
  updateDtMs: number;
}

export interface LicenseRec {
  cid: string;
  status: 'success' | 'fail';
  errorCode: string;
  drmType: DrmType;
  userId: string;
  deviceId: string;
  deviceModel: string;
  licenseType: 'token' | 'gateway';
  platformName: string;
  regTimeMs: number;
}

export interface PackagingRec {
  siteId: string;
  cid: string;
  track: string;
  createdMs: number;
  updateMs: number;
}

export interface SettingsRec {
  siteKey: string;
  accessKey: string;
  licenseCallbackUrl: string;
  packageCallbackUrl: string;
  kmsToken: string;
  tokenDuration: number;
  iv: string;
}

/** What the emulator keeps of a certificate upload: names and sizes, never contents. */
export interface CertUploadRec {
  accountId: string;
  atMs: number;
  fpsCertFilename: string;
  fpsCertBytes: number;
  privateKeyFilename: string;
  privateKeyBytes: number;
  /** SHA-256 (hex) of the `ask` and `key_pw` received: never the values. */
  askSha256: string;
  keyPwSha256: string;
}

export interface MonthlyStatRec {
  licenseCnt: number;
  userAccCnt: number;
  deviceAccCnt: number;
}

export interface SiteSvcData {
  statusRequests: StatusRequestRec[];
  licenses: LicenseRec[];
  packaging: PackagingRec[];
  settings: SettingsRec;
  certUploads: CertUploadRec[];
  /** By "yyyy-MM". */
  monthly: Map<string, MonthlyStatRec>;
}

export interface AdditionalSiteReqRec {
  seq: number;
  accountId: string;
  siteId: string;
  serviceName: string;
  status: string;
  regTimeMs: number;
  updateTimeMs: number;
}

export interface MemberRec {
  memberSeq: number;
  email: string;
  groupSeq: MemberGroupSeq;
  status: MemberStatusCode;
  regDateMs: number;
  passwordResets: number;
}

export interface SvcAccount {
  accountId: string;
  accountSeq: string;
  secretKey: string;
  /** Owned sites, in display order. */
  siteIds: string[];
  forbidden: boolean;
  siteRequests: AdditionalSiteReqRec[];
  members: MemberRec[];
}

export function newSiteSvcData(_siteId: string): SiteSvcData {
  return {
    statusRequests: [],
    licenses: [],
    packaging: [],
    settings: {
      siteKey: randomBytes(32).toString('base64'),
      accessKey: randomBytes(32).toString('base64'),
      licenseCallbackUrl: '',
      packageCallbackUrl: '',
      kmsToken: randomBytes(24).toString('base64url'),
      tokenDuration: 600,
      iv: randomBytes(16).toString('base64'),
    },
    certUploads: [],
    monthly: new Map(),
  };
}

// ---------------------------------------------------------------------------------------------
// Changes made "from outside the bot" (tests): a license burst, a console cancel, a provider
// decision on an additional-site request.
// ---------------------------------------------------------------------------------------------

/** A license record to add; unset fields get plausible values. */
export interface NewLicenseRec {
  cid: string;
  status: 'success' | 'fail';
  /** Default '0000' for success, 'E4001' for a failure. */
  errorCode?: string;
  regTimeMs: number;
  drmType?: DrmType;
  userId?: string;
  deviceId?: string;
  deviceModel?: string;
  licenseType?: 'token' | 'gateway';
  platformName?: string;
}

/** Adds license records (kept in time order, as the seed does); returns the count added. */
export function addLicenseRecords(data: SiteSvcData, recs: NewLicenseRec[]): number {
  for (const r of recs) {
    if (!Number.isFinite(r.regTimeMs)) throw new Error('emulator: a license record needs regTimeMs');
    if (r.status !== 'success' && r.status !== 'fail') throw new Error('emulator: status is success or fail');
    data.licenses.push({
      cid: r.cid,
      status: r.status,
      errorCode: r.errorCode ?? (r.status === 'success' ? '0000' : 'E4001'),
      drmType: r.drmType ?? 'Widevine',
      userId: r.userId ?? 'user-test',
      deviceId: r.deviceId ?? 'dev-test',
      deviceModel: r.deviceModel ?? 'Pixel 8',
      licenseType: r.licenseType ?? 'token',
      platformName: r.platformName ?? 'Android',
      regTimeMs: r.regTimeMs,
    });
  }
  data.licenses.sort((a, b) => a.regTimeMs - b.regTimeMs);
  return recs.length;
}

/** A pending (ST001) plan request cancelled elsewhere (the vendor's console): ST002. */
export function cancelStatusRequestElsewhere(data: SiteSvcData, requestId: string, nowMs: number): void {
  const req = data.statusRequests.find((r) => r.reqGroupId === requestId);
  if (!req) throw new Error(`emulator: unknown request ${requestId}`);
  if (req.regStatus !== 'ST001')
    throw new Error(`emulator: request ${requestId} is ${req.regStatus}, not ST001`);
  req.regStatus = 'ST002';
  req.updateDtMs = nowMs;
}

/**
 * The provider decides an additional-site request: a new status ("approved", "rejected"... the
 * spec lists none) and, when approved, the site id it assigned.
 */
export function decideSiteRequest(
  acc: SvcAccount,
  seq: number,
  status: string,
  nowMs: number,
  siteId?: string,
): AdditionalSiteReqRec {
  const r = acc.siteRequests.find((x) => x.seq === seq);
  if (!r) throw new Error(`emulator: unknown additional-site request ${seq}`);
  if (r.status !== 'requested') throw new Error(`emulator: additional-site request ${seq} is ${r.status}`);
  r.status = status;
  r.updateTimeMs = nowMs;
  if (siteId !== undefined) r.siteId = siteId;
  return r;
}
