/**
 * A sample daily digest (two sites, failed jobs, registrations, licenses, a pending plan request),
 * shared by the digest renderer's tests and the style budgets.
 */
import type { Digest } from '../../src/notices/types.js';

/** The digest's day ends here (2026-11-22 09:00 UTC). */
export const DIGEST_T = Date.UTC(2026, 10, 22, 9, 0, 0);
const T = DIGEST_T;

export function sampleDigest(over: Partial<Digest> = {}): Digest {
  return {
    channelId: 'C0123ABC',
    fromMs: T - 86_400_000,
    toMs: T,
    zone: 'Asia/Seoul',
    scheduledFor: T,
    day: '2026-11-22',
    sites: ['AB12', 'CD34'],
    jobs: {
      ok: true,
      value: {
        byStatus: { DM000: 1, DM001: 0, DM500: 7, DM600: 2 },
        perSite: [
          { siteId: 'AB12', byStatus: { DM000: 1, DM001: 0, DM500: 5, DM600: 2 } },
          { siteId: 'CD34', byStatus: { DM000: 0, DM001: 0, DM500: 2, DM600: 0 } },
        ],
        failed: [
          { siteId: 'AB12', jobId: 4812, contentId: 'movie-trailer-01', failedRecipients: 3 },
          { siteId: 'AB12', jobId: 4813, contentId: 'movie-trailer-02', failedRecipients: null },
        ],
        failedMore: 0,
        truncated: false,
      },
    },
    registrations: {
      ok: true,
      value: {
        perSite: [
          { siteId: 'AB12', count: 6 },
          { siteId: 'CD34', count: 0 },
        ],
        total: 6,
        truncated: false,
      },
    },
    licenses: {
      ok: true,
      value: {
        perSite: [
          { siteId: 'AB12', success: 120, fail: 5, truncated: false },
          { siteId: 'CD34', success: 30, fail: 0, truncated: false },
        ],
      },
    },
    pendingRequests: {
      ok: true,
      value: [
        {
          siteId: 'AB12',
          serviceCode: 'PD001',
          serviceLabel: 'DRM',
          requestId: 'RG100',
          requestLabel: 'Trial extension',
          status: 'ST001',
          regTimeMs: T - 3_600_000,
        },
      ],
    },
    ...over,
  };
}
