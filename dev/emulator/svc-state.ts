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
