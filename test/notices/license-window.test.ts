/**
 * The license window read (readLicenseWindow) over a list whose order the spec does not give:
 * newest first, oldest first, or undetectable; and a page cap that stops the read is said, both
 * in the read and in `/drm alerts`.
 */
import { describe, expect, it } from 'vitest';
import type { LicenseQuery, LicenseRecord, ServiceClient, SvcPage } from '../../src/api/types.js';
import { evaluateAlert } from '../../src/notices/alert-state.js';
import { ALERT_DEFAULTS } from '../../src/notices/alert-subscriptions.js';
import { readLicenseWindow, windowStats } from '../../src/notices/license-window.js';
import type { AlertSubscription } from '../../src/notices/types.js';
import { alertsListMessage } from '../../src/slack/features/alerts/render.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const FROM = NOW - 15 * 60_000;

function rec(ms: number, status: 'success' | 'fail' = 'success'): LicenseRecord {
  return {
    cid: 'c',
    status,
    errorCode: status === 'fail' ? 'E1' : '0000',
    drmType: 'Widevine',
    userId: 'u',
    deviceId: 'd',
    deviceModel: 'm',
    licenseType: 'token',
    platformName: 'web',
    regTime: { raw: String(ms), epochMs: ms },
  };
}

/** A fake endpoint 11 over `list` (in the order given); counts its calls. */
function fakeClient(list: LicenseRecord[]) {
  const calls: number[] = [];
  const client = {
    async listLicenses(_site: string, q: LicenseQuery = {}): Promise<SvcPage<LicenseRecord>> {
      const unit = q.pageUnit ?? 25;
      const index = q.pageIndex ?? 1;
      calls.push(index);
      const items = list.slice((index - 1) * unit, index * unit);
      return { items, count: items.length, pageIndex: index, pageUnit: unit };
    },
  } as unknown as ServiceClient;
  return { client, calls };
}

/** 1,000 requests of the day before the window (every 30 s), then 30 in the window (6 failed). */
function day(): LicenseRecord[] {
  const old = Array.from({ length: 1000 }, (_, i) => rec(FROM - 60_000 - i * 30_000));
  const recent = Array.from({ length: 30 }, (_, i) =>
    rec(NOW - 1000 - i * 20_000, i < 6 ? 'fail' : 'success'),
  );
  return [...recent, ...old]; // newest first
}

describe('license window read', () => {
  it('newest first: reads from the top and stops at the page that reaches past the window', async () => {
    const { client, calls } = fakeClient(day());
    const r = await readLicenseWindow(client, 'AB12', FROM, NOW, { pageUnit: 20, maxPages: 20 });
    expect(r.order).toBe('newest-first');
    expect(r.records).toHaveLength(30);
    expect(r.truncated).toBe(false);
    expect(calls).toEqual([1, 2]);
  });

  it('oldest first: finds the window at the end in a few calls instead of reading the whole day', async () => {
    const { client, calls } = fakeClient(day().reverse());
    const r = await readLicenseWindow(client, 'AB12', FROM, NOW, { pageUnit: 20, maxPages: 20 });
    expect(r.order).toBe('oldest-first');
    expect(r.records).toHaveLength(30);
    expect(r.records.filter((x) => x.status === 'fail')).toHaveLength(6);
    expect(r.truncated).toBe(false);
    expect(calls.length).toBeLessThan(20);
  });

  it('records after the window (a later `to` day) end an oldest-first read', async () => {
    const later = Array.from({ length: 100 }, (_, i) => rec(NOW + 60_000 + i * 1000));
    const { client, calls } = fakeClient([...day().reverse(), ...later]);
    const r = await readLicenseWindow(client, 'AB12', FROM, NOW, { pageUnit: 20, maxPages: 20 });
    expect(r.records).toHaveLength(30);
    expect(r.truncated).toBe(false);
    expect(calls.length).toBeLessThan(20);
  });

  it('the cap hit before the window is covered is said (truncated), in the read and in /drm alerts', async () => {
    const { client } = fakeClient(day().reverse());
    const r = await readLicenseWindow(client, 'AB12', FROM, NOW, { pageUnit: 20, maxPages: 3 });
    expect(r.truncated).toBe(true);
    const sub: AlertSubscription = {
      id: 'alrt_1',
      workspace: 'T1',
      channelId: 'C0123ABC',
      siteId: 'AB12',
      ...ALERT_DEFAULTS,
      createdBy: 'U0CREATOR',
      createdAt: new Date(NOW - 86_400_000).toISOString(),
    };
    const { state } = evaluateAlert('T1', sub, undefined, windowStats(r, FROM), NOW);
    expect(state.last).toMatchObject({ truncated: true });
    const list = JSON.stringify(
      alertsListMessage(
        'C0123ABC',
        [
          {
            subscription: sub,
            state: { spikeOpen: false, lastCheckedAt: NOW, ...(state.last ? { last: state.last } : {}) },
          },
        ],
        'UTC',
      ),
    );
    expect(list).toContain('window not fully read');
  });
});
