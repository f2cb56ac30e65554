/**
 * A small in-memory ServiceClient for unit tests of the service ops. It keeps state (sites,
 * members, plan requests, DRM rows, settings), pages with page_index/page_unit like the service,
 * refuses like the service (E4002/E4003/E5001/E5002 as ServiceError) and records every call.
 */
import type { MemberGroupSeq, ServiceCode } from '../../src/api/codes.js';
import { ServiceError } from '../../src/api/errors.js';
import type {
  AdditionalSiteRequest,
  AdditionalSiteRequestQuery,
  CidLicense,
  DrmDevice,
  DrmSettings,
  DrmUser,
  FpsCertUpload,
  LicenseRecord,
  MonthlyStats,
  PackagingQuery,
  PackagingRecord,
  PageQuery,
  ServiceClient,
  Site,
  StatusRequest,
  SubMember,
  SvcPage,
  TimeValue,
} from '../../src/api/types.js';

export interface Call {
  method: keyof ServiceClient;
  args: unknown[];
}

export function tv(iso: string): TimeValue {
  return { raw: iso, epochMs: Date.parse(iso) };
}

function page<T>(all: T[], q: PageQuery | undefined): SvcPage<T> {
  const pageUnit = q?.pageUnit ?? 25;
  const pageIndex = q?.pageIndex ?? 1;
  const items = all.slice((pageIndex - 1) * pageUnit, pageIndex * pageUnit);
  return { items, count: items.length, pageIndex, pageUnit };
}

export class FakeServiceClient implements ServiceClient {
  calls: Call[] = [];
  sites: Site[] = [
    {
      siteId: 'AB12',
      name: 'Movies',
      products: [
        { serviceCode: 'PD002', status: 'SE001' },
        { serviceCode: 'PD001', status: 'SE000' },
      ],
    },
    { siteId: 'AA00', name: 'Music', products: [{ serviceCode: 'PD001', status: 'SE000' }] },
  ];
  siteRequests: AdditionalSiteRequest[] = [];
  members: SubMember[] = [
    {
      groupName: 'BIZ group',
      groupSeq: 1000,
      memberSeq: 1,
      email: 'a@example.com',
      status: 'MT001',
      regDate: '2026-01-01',
    },
    {
      groupName: 'TS group',
      groupSeq: 1001,
      memberSeq: 2,
      email: 'b@example.com',
      status: 'MT002',
      regDate: '2026-01-02',
    },
  ];
  /** Requests per "site/service", newest last. */
  requests = new Map<string, StatusRequest[]>();
  licenses: LicenseRecord[] = [];
  users: DrmUser[] = [];
  devices: DrmDevice[] = [];
  cids: CidLicense[] = [];
  packaging: PackagingRecord[] = [];
  /** Packaging page size (the service's own, not a parameter). */
  packagingPageSize = 2;
  settings: DrmSettings = {
    siteId: 'AB12',
    siteKey: 'c2l0ZWtleXNpdGVrZXlzaXRla2V5c2l0ZWtleTE2',
    accessKey: 'ACCESSKEY-0123456789-WXYZ',
    licenseCallbackUrl: '',
    packageCallbackUrl: 'https://old.example.com/pack',
    kmsToken: 'kms-token-secret-value-9876',
    tokenDuration: 600,
    iv: '0123456789abcdef',
  };
  stats = new Map<string, MonthlyStats>();
  uploads: { siteId: string; upload: FpsCertUpload }[] = [];
  private nextSeq = 100;

  private rec(method: keyof ServiceClient, ...args: unknown[]): void {
    this.calls.push({ method, args });
  }
  callsOf(method: keyof ServiceClient): Call[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Seeds a request as the latest one for site+service. */
  addRequest(siteId: string, service: ServiceCode, r: Partial<StatusRequest> & { requestId: string }): void {
    const key = `${siteId}/${service}`;
    const list = this.requests.get(key) ?? [];
    list.push({
      siteId,
      type: 'SM003',
      message: '',
      status: 'ST001',
      registeredBy: 'acct',
      regTime: tv('2026-01-01T00:00:00Z'),
      ...r,
    });
    this.requests.set(key, list);
  }

  async verify(): Promise<void> {
    this.rec('verify');
  }
  async getSites(): Promise<Site[]> {
    this.rec('getSites');
    return structuredClone(this.sites);
  }
  async requestAdditionalSite(serviceName: string): Promise<{ seq: number }> {
    this.rec('requestAdditionalSite', serviceName);
    const seq = this.nextSeq++;
    this.siteRequests.push({
      seq,
      accountId: 'acct',
      siteId: '',
      serviceName,
      status: 'requested',
      updateTime: tv('2026-01-01T00:00:00Z'),
      regTime: tv('2026-01-01T00:00:00Z'),
    });
    return { seq };
  }
  async listAdditionalSiteRequests(
    query?: AdditionalSiteRequestQuery,
  ): Promise<SvcPage<AdditionalSiteRequest>> {
    this.rec('listAdditionalSiteRequests', query);
    return page(this.siteRequests, query);
  }
  async listSubMembers(query?: PageQuery): Promise<SvcPage<SubMember>> {
    this.rec('listSubMembers', query);
    return page(structuredClone(this.members), query);
  }
  async createSubMember(email: string, groupSeq?: MemberGroupSeq): Promise<{ memberSeq: number }> {
    this.rec('createSubMember', email, groupSeq);
    if (this.members.some((m) => m.email === email))
      throw new ServiceError('svc.createSubMember', 'E5002', 'exists');
    const memberSeq = this.nextSeq++;
    this.members.push({
      groupName: 'group',
      groupSeq: groupSeq ?? 1014,
      memberSeq,
      email,
      status: 'MT001',
      regDate: '2026-02-01',
    });
    return { memberSeq };
  }
  async resetSubMemberPassword(memberSeq: number): Promise<void> {
    this.rec('resetSubMemberPassword', memberSeq);
    if (!this.members.some((m) => m.memberSeq === memberSeq)) {
      throw new ServiceError('svc.resetSubMemberPassword', 'E5001', 'no member');
    }
  }
  async updateSubMember(update: {
    memberSeq: number;
    status?: SubMember['status'];
    groupSeq?: MemberGroupSeq;
  }): Promise<void> {
    this.rec('updateSubMember', update);
    const m = this.members.find((x) => x.memberSeq === update.memberSeq);
    if (!m) throw new ServiceError('svc.updateSubMember', 'E5001', 'no member');
    if (update.status) m.status = update.status;
    if (update.groupSeq) m.groupSeq = update.groupSeq;
  }
  async getLatestStatusRequest(siteId: string, serviceCode: ServiceCode): Promise<StatusRequest | null> {
    this.rec('getLatestStatusRequest', siteId, serviceCode);
    const r = this.requests.get(`${siteId}/${serviceCode}`)?.at(-1);
    return r ? structuredClone(r) : null;
  }
  async registerStatusRequest(
    siteId: string,
    req: { serviceCode: ServiceCode; requestType: string; message?: string },
  ): Promise<StatusRequest> {
    this.rec('registerStatusRequest', siteId, req);
    const latest = this.requests.get(`${siteId}/${req.serviceCode}`)?.at(-1);
    if (latest?.status === 'ST001') throw new ServiceError('svc.registerStatusRequest', 'E4003', 'pending');
    const requestId = `RG${this.nextSeq++}`;
    this.addRequest(siteId, req.serviceCode, {
      requestId,
      type: req.requestType,
      message: req.message ?? '',
      status: 'ST001',
    });
    const { status: _s, ...created } = this.requests.get(`${siteId}/${req.serviceCode}`)!.at(-1)!;
    return structuredClone(created);
  }
  async cancelStatusRequest(
    siteId: string,
    req: { serviceCode: ServiceCode; requestId: string },
  ): Promise<StatusRequest> {
    this.rec('cancelStatusRequest', siteId, req);
    const r = this.requests.get(`${siteId}/${req.serviceCode}`)?.find((x) => x.requestId === req.requestId);
    if (!r) throw new ServiceError('svc.cancelStatusRequest', 'E4001', 'not found');
    if (r.status !== 'ST001') throw new ServiceError('svc.cancelStatusRequest', 'E4002', 'not pending');
    r.status = 'ST002';
    r.updateTime = tv('2026-01-02T00:00:00Z');
    return structuredClone(r);
  }
  async listLicenses(siteId: string, query?: PageQuery): Promise<SvcPage<LicenseRecord>> {
    this.rec('listLicenses', siteId, query);
    return page(this.licenses, query);
  }
  async listUsers(siteId: string, query?: PageQuery): Promise<SvcPage<DrmUser>> {
    this.rec('listUsers', siteId, query);
    return page(this.users, query);
  }
  async listDevices(siteId: string, query?: PageQuery): Promise<SvcPage<DrmDevice>> {
    this.rec('listDevices', siteId, query);
    return page(this.devices, query);
  }
  async listCidLicenses(siteId: string, query?: PageQuery): Promise<SvcPage<CidLicense>> {
    this.rec('listCidLicenses', siteId, query);
    return page(this.cids, query);
  }
  async listPackaging(siteId: string, query?: PackagingQuery): Promise<SvcPage<PackagingRecord>> {
    this.rec('listPackaging', siteId, query);
    let rows = this.packaging;
    if (query?.lastCreatedTimeCid !== undefined && query.lastUpdateTime !== undefined) {
      const i = rows.findIndex(
        (r) => r.createdTime.raw === query.lastCreatedTimeCid && r.updateTime.raw === query.lastUpdateTime,
      );
      rows = rows.slice(i + 1);
    }
    const items = rows.slice(0, this.packagingPageSize);
    return { items, count: items.length, pageIndex: 1, pageUnit: this.packagingPageSize };
  }
  async getSettings(siteId: string): Promise<DrmSettings> {
    this.rec('getSettings', siteId);
    return { ...this.settings, siteId };
  }
  async updateSettings(siteId: string, update: Partial<DrmSettings>): Promise<void> {
    this.rec('updateSettings', siteId, update);
    Object.assign(this.settings, update);
  }
  async uploadFpsCert(siteId: string, upload: FpsCertUpload): Promise<void> {
    this.rec('uploadFpsCert', siteId, upload);
    this.uploads.push({ siteId, upload });
  }
  async getMonthlyStats(siteId: string, targetDate: string): Promise<MonthlyStats> {
    this.rec('getMonthlyStats', siteId, targetDate);
    return this.stats.get(targetDate) ?? { licenseCount: 0, userCount: 0, deviceCount: 0, targetDate };
  }
}
