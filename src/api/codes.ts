/**
 * Every code of both specs and its human name, in one place. Renderers, parsers, the emulator
 * and validation all read from here; nothing else spells a code's meaning.
 */

export const JOB_STATUS = {
  DM000: 'READY',
  DM001: 'PREPROCESSING',
  DM500: 'COMPLETED',
  DM600: 'ERROR',
} as const;
export type JobStatusCode = keyof typeof JOB_STATUS;
export const JOB_STATUS_CODES = Object.keys(JOB_STATUS) as JobStatusCode[];
/** Jobs still moving: the poller's in-flight set. */
export const JOB_IN_FLIGHT: readonly JobStatusCode[] = ['DM000', 'DM001'];
export const JOB_TERMINAL: readonly JobStatusCode[] = ['DM500', 'DM600'];

export const TASK_STATUS = {
  TK000: 'READY',
  TK001: 'PROGRESSING',
  TK002: 'COMPLETE',
  TK005: 'FAIL',
} as const;
export type TaskStatusCode = keyof typeof TASK_STATUS;
export const TASK_STATUS_CODES = Object.keys(TASK_STATUS) as TaskStatusCode[];
export const TASK_IN_FLIGHT: readonly TaskStatusCode[] = ['TK000', 'TK001'];

export const PRODUCT_STATUS = {
  SE000: 'In service',
  SE001: 'Suspended',
} as const;
export type ProductStatusCode = keyof typeof PRODUCT_STATUS;

export const SERVICE_CODE = {
  PD001: 'DRM',
  PD002: 'FWM',
} as const;
export type ServiceCode = keyof typeof SERVICE_CODE;
export const SERVICE_CODES = Object.keys(SERVICE_CODE) as ServiceCode[];

export const MEMBER_STATUS = {
  MT001: 'Active',
  MT002: 'Inactive',
} as const;
export type MemberStatusCode = keyof typeof MEMBER_STATUS;

export const REQUEST_STATUS = {
  ST001: 'Pending',
  ST002: 'Cancelled',
  ST003: 'Approved',
} as const;
export type RequestStatusCode = keyof typeof REQUEST_STATUS;

export const REQUEST_TYPE = {
  SM001: 'Service resume',
  SM002: 'Service suspension',
  SM003: 'Trial extension',
  SM004: 'Cancel a service change request',
} as const;
export type RequestTypeCode = keyof typeof REQUEST_TYPE;
/** Types that can be registered with endpoint 9 (SM004 is only for cancel, endpoint 10). */
export const REGISTRABLE_REQUEST_TYPES = ['SM001', 'SM002', 'SM003'] as const;
export type RegistrableRequestType = (typeof REGISTRABLE_REQUEST_TYPES)[number];

export const MEMBER_GROUP = {
  1000: { name: 'BIZ', access: 'service usage history, integration information, payment pages' },
  1001: { name: 'TS', access: 'service usage history, integration information, SDK download pages' },
  1014: { name: 'Clients', access: 'service usage history pages only' },
} as const;
export type MemberGroupSeq = keyof typeof MEMBER_GROUP;
export const MEMBER_GROUP_SEQS = [1000, 1001, 1014] as const;

export const DRM_TYPES = ['PlayReady', 'Widevine', 'FairPlay', 'NCG'] as const;
export type DrmType = (typeof DRM_TYPES)[number];

export const LICENSE_SEARCH_CONDITIONS = ['cid', 'drm_type', 'user_id', 'device_id', 'device_model'] as const;
export type LicenseSearchCondition = (typeof LICENSE_SEARCH_CONDITIONS)[number];

/** The Service API's fixed api_code per endpoint (spec table, section 4). */
export const API_CODE = {
  getSites: 'UC011004100',
  requestAdditionalSite: 'UA010310200',
  listAdditionalSiteRequests: 'UA010310100',
  listSubMembers: 'UA010700200',
  createSubMember: 'UA010700200',
  resetSubMemberPassword: 'UA010700200',
  updateSubMember: 'UA010700200',
  getLatestStatusRequest: 'UA010301100',
  registerStatusRequest: 'UA010301200',
  cancelStatusRequest: 'UA010301200',
  listLicenses: 'UA003001100',
  listUsers: 'UA003001100',
  listDevices: 'UA003001100',
  listCidLicenses: 'UA003001100',
  listPackaging: 'UA003001100',
  getSettings: 'UA003004100',
  updateSettings: 'UA003004100',
  uploadFpsCert: 'UA003004200',
  getMonthlyStats: 'UA003003100',
} as const;
export type ServiceEndpointName = keyof typeof API_CODE;

/**
 * The label of a code in one table, or "unknown (CODE)" for a code the table does not list (a
 * service newer than the specs; the API client keeps such codes instead of failing the call).
 */
export function codeLabel(table: Readonly<Record<string, string>>, code: string): string {
  return Object.hasOwn(table, code) ? (table[code] as string) : `unknown (${code})`;
}

/** True when `code` is one of the table's codes. */
export function isKnownCode(table: Readonly<Record<string, unknown>>, code: string): boolean {
  return Object.hasOwn(table, code);
}

/** A human label for any code this module knows; "unknown (CODE)" otherwise. */
export function codeName(code: string): string {
  const tables: Record<string, string>[] = [
    JOB_STATUS,
    TASK_STATUS,
    PRODUCT_STATUS,
    SERVICE_CODE,
    MEMBER_STATUS,
    REQUEST_STATUS,
    REQUEST_TYPE,
  ];
  for (const t of tables) {
    if (Object.hasOwn(t, code)) return t[code] as string;
  }
  const group = MEMBER_GROUP[Number(code) as MemberGroupSeq];
  return group ? group.name : `unknown (${code})`;
}
