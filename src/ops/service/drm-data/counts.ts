/**
 * The DRM data counted per UTC day by the service (`/drm users`, `/drm devices`, `/drm cids`):
 * each kind's filters (its one search field, the reader's dates, the page) to its API query, and
 * one page for the table saying which UTC days the counts cover. The three kinds differ only in
 * their search field and their endpoint: the query and the page are built once.
 */
import { z } from 'zod';
import type {
  CidLicense,
  DrmDevice,
  DrmListQuery,
  DrmUser,
  ServiceClient,
  SvcPage,
} from '../../../api/types.js';
import {
  applyDates,
  opsEndpoint,
  type PageInput,
  type PageResult,
  parseInput,
  readerDateFields,
  requireSiteId,
  toPageQuery,
  toPageResult,
} from '../common.js';
import { type DateFilters, keyword, pageFields, readerDaysOf, statusFilter } from './filters.js';

const userFilters = z
  .object({ ...readerDateFields, ...pageFields, user: keyword('user id').optional() })
  .strict();
const deviceFilters = z
  .object({ ...readerDateFields, ...pageFields, device: keyword('device id').optional() })
  .strict();
const cidFilters = z.object({ ...readerDateFields, ...pageFields, status: statusFilter }).strict();

export interface UserFilters extends DateFilters, PageInput {
  user?: string;
}
export interface DeviceFilters extends DateFilters, PageInput {
  device?: string;
}
export interface CidFilters extends DateFilters, PageInput {
  status?: 'success' | 'fail';
}

export type UserQuery = DrmListQuery & { searchKeyword?: string };
export type DeviceQuery = DrmListQuery & { searchKeyword?: string };
export type CidQuery = DrmListQuery & { searchStatus?: 'success' | 'fail' };

/** The filters every counted kind takes (dates and page), as parsed. */
type CountsFilters = z.output<z.ZodObject<typeof readerDateFields & typeof pageFields>>;

/** A counted kind's query: its page and dates, then its own search field (`search`). */
function countsQuery<S extends z.ZodType<CountsFilters>, Q extends DrmListQuery>(
  kind: 'users' | 'devices' | 'cids',
  schema: S,
  filters: unknown,
  search: (f: z.output<S>) => Partial<Q>,
): Q {
  const endpoint = opsEndpoint(`drm.${kind}`);
  const f = parseInput(endpoint, schema, filters);
  const q = { ...toPageQuery(endpoint, f) } as Q;
  applyDates(endpoint, f, q, f.timeZone);
  return Object.assign(q, search(f));
}

export function toUserQuery(filters: UserFilters): UserQuery {
  return countsQuery(
    'users',
    userFilters,
    filters,
    (f): Partial<UserQuery> => (f.user ? { searchKeyword: f.user } : {}),
  );
}

export function toDeviceQuery(filters: DeviceFilters): DeviceQuery {
  return countsQuery(
    'devices',
    deviceFilters,
    filters,
    (f): Partial<DeviceQuery> => (f.device ? { searchKeyword: f.device } : {}),
  );
}

export function toCidQuery(filters: CidFilters): CidQuery {
  return countsQuery(
    'cids',
    cidFilters,
    filters,
    (f): Partial<CidQuery> => (f.status ? { searchStatus: f.status } : {}),
  );
}

/**
 * One page of a counted kind (the site checked before the filters). Counts are summed per UTC
 * day by the service: the reply says which UTC days they cover.
 */
async function countsPage<T>(
  kind: 'users' | 'devices' | 'cids',
  siteId: string,
  filters: DateFilters,
  fetch: () => Promise<SvcPage<T>>,
): Promise<PageResult<T>> {
  requireSiteId(opsEndpoint(`drm.${kind}`), siteId);
  const page = toPageResult(await fetch());
  const days = readerDaysOf(filters);
  return days ? { ...page, dates: { ...days, exact: false } } : page;
}

export function listUsers(
  client: ServiceClient,
  siteId: string,
  filters: UserFilters = {},
): Promise<PageResult<DrmUser>> {
  return countsPage('users', siteId, filters, () => client.listUsers(siteId, toUserQuery(filters)));
}

export function listDevices(
  client: ServiceClient,
  siteId: string,
  filters: DeviceFilters = {},
): Promise<PageResult<DrmDevice>> {
  return countsPage('devices', siteId, filters, () => client.listDevices(siteId, toDeviceQuery(filters)));
}

export function listCids(
  client: ServiceClient,
  siteId: string,
  filters: CidFilters = {},
): Promise<PageResult<CidLicense>> {
  return countsPage('cids', siteId, filters, () => client.listCidLicenses(siteId, toCidQuery(filters)));
}
