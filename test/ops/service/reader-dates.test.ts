/**
 * `from:`/`to:` of the DRM data lists are the reader's days, in their zone (users.info tz): the
 * service (UTC days) is asked for the UTC days that cover them, rows with a time are cut to the
 * reader's days exactly, counts per UTC day say which UTC days they cover, and the reply names
 * the zone. Tested across a zone boundary: 2026-03-10 in Seoul (UTC+9) starts on 2026-03-09 UTC.
 */
import { describe, expect, it } from 'vitest';
import { readerDays } from '../../../src/ops/service/common.js';
import { exportAll, listLicenses, listPackaging, listUsers } from '../../../src/ops/service/drm-data.js';
import { listSiteRequests } from '../../../src/ops/service/sites.js';
import { dataTableMessage } from '../../../src/slack/features/drm-data/render.js';
import { jobListMessage } from '../../../src/slack/features/jobs/render.js';
import { recipientListMessage } from '../../../src/slack/features/recipients/render.js';
import { siteRequestsMessage } from '../../../src/slack/features/sites/render.js';
import { readerDateWords } from '../../../src/slack/kit/blocks/reader-dates.js';
import { FakeServiceClient, tv } from '../../support/fake-service.js';

const license = (cid: string, iso: string) => ({
  cid,
  status: 'success' as const,
  errorCode: '0000',
  drmType: 'Widevine',
  userId: 'u',
  deviceId: 'd',
  deviceModel: 'Pixel',
  licenseType: 'token',
  platformName: 'Android',
  regTime: tv(iso),
});

// Seoul is UTC+9 all year (no DST): its 2026-03-10 is [2026-03-09T15:00Z, 2026-03-10T15:00Z).
const SEOUL = 'Asia/Seoul';
const before = license('before', '2026-03-09T14:59:59Z'); // 2026-03-09 23:59:59 in Seoul
const early = license('early', '2026-03-09T15:00:00Z'); // 2026-03-10 00:00 in Seoul, 09 in UTC
const late = license('late', '2026-03-10T14:59:59Z'); // 2026-03-10 23:59:59 in Seoul
const after = license('after', '2026-03-10T15:00:00Z'); // 2026-03-11 00:00 in Seoul, 10 in UTC

describe("the reader's days", () => {
  it('covering UTC days and exact instants, across the boundary and a DST change', () => {
    expect(readerDays({ from: '2026-03-10', to: '2026-03-10' }, SEOUL)).toEqual({
      zone: SEOUL,
      from: '2026-03-10',
      to: '2026-03-10',
      utcFrom: '2026-03-09',
      utcTo: '2026-03-10',
      startMs: Date.parse('2026-03-09T15:00:00Z'),
      endMs: Date.parse('2026-03-10T15:00:00Z'),
    });
    // New York's 2026-03-08 has 23 hours (DST starts): the end is the next local midnight.
    const ny = readerDays({ from: '2026-03-08', to: '2026-03-08' }, 'America/New_York');
    expect(ny.startMs).toBe(Date.parse('2026-03-08T05:00:00Z'));
    expect(ny.endMs).toBe(Date.parse('2026-03-09T04:00:00Z'));
    expect([ny.utcFrom, ny.utcTo]).toEqual(['2026-03-08', '2026-03-09']);
  });

  it('licenses: the service is asked for the covering UTC days; only the Seoul day is shown, and the reply names the zone', async () => {
    const c = new FakeServiceClient();
    c.licenses = [before, early, late, after];
    const p = await listLicenses(c, 'AB12', { from: '2026-03-10', to: '2026-03-10', timeZone: SEOUL });
    expect(c.callsOf('listLicenses')[0]?.args[1]).toMatchObject({ from: '2026-03-09', to: '2026-03-10' });
    expect(p.items.map((r) => r.cid)).toEqual(['early', 'late']);
    const m = JSON.stringify(
      dataTableMessage(
        'licenses',
        p,
        { from: '2026-03-10', to: '2026-03-10' },
        {
          workspace: 'T1',
          siteId: 'AB12',
          timeZone: SEOUL,
          userId: 'U1',
          atMs: 0,
          refId: 'r',
        },
      ),
    );
    expect(m).toContain('Dates on 2026-03-10, in your time zone (Asia/Seoul)');
    // Without a zone the days are UTC days, as before.
    const utc = await listLicenses(c, 'AB12', { from: '2026-03-10', to: '2026-03-10' });
    expect(c.callsOf('listLicenses')[1]?.args[1]).toMatchObject({ from: '2026-03-10', to: '2026-03-10' });
    expect(utc.items.map((r) => r.cid)).toEqual(['late', 'after']);
  });

  it('export and packaging keep the same rows', async () => {
    const c = new FakeServiceClient();
    c.licenses = [before, early, late, after];
    const days = readerDays({ from: '2026-03-10', to: '2026-03-10' }, SEOUL);
    const csv = await exportAll('licenses', c, 'AB12', { from: '2026-03-09', to: '2026-03-10' }, { days });
    expect(csv.rowCount).toBe(2);
    expect(csv.csv).toContain('early');
    expect(csv.csv).not.toContain('before');
    c.packaging = [before, early, late, after].map((l) => ({
      cid: l.cid,
      drmType: 'Widevine',
      userId: 'u',
      deviceId: 'd',
      deviceModel: 'm',
      createdTime: l.regTime,
      updateTime: l.regTime,
    })) as never;
    c.packagingPageSize = 2;
    const pk = await listPackaging(c, { siteId: 'AB12', filters: { to: '2026-03-10', timeZone: SEOUL } });
    expect(pk.items.map((r) => r.cid)).toEqual(['before', 'early']);
    expect(pk.dates?.zone).toBe(SEOUL);
    // "More" keeps the reader's range (in the cursor) and moves past every row the service sent.
    const more = await listPackaging(c, { cursor: pk.nextCursor! });
    expect(more.items.map((r) => r.cid)).toEqual(['late']);
  });

  it('counts per UTC day (users) say which UTC days they cover', async () => {
    const c = new FakeServiceClient();
    const p = await listUsers(c, 'AB12', { from: '2026-03-10', to: '2026-03-11', timeZone: SEOUL });
    expect(c.callsOf('listUsers')[0]?.args[1]).toMatchObject({ from: '2026-03-09', to: '2026-03-11' });
    const m = JSON.stringify(
      dataTableMessage(
        'users',
        p,
        { from: '2026-03-10', to: '2026-03-11' },
        {
          workspace: 'T1',
          siteId: 'AB12',
          timeZone: SEOUL,
          userId: 'U1',
          atMs: 0,
          refId: 'r',
        },
      ),
    );
    expect(m).toContain('from 2026-03-10 to 2026-03-11, in your time zone (Asia/Seoul)');
    expect(m).toContain('cover 2026-03-09 to 2026-03-11 UTC');
  });
});

describe('job and recipient lists', () => {
  it('say the zone their from:/to: dates are read in', () => {
    const m = jobListMessage({
      siteId: 'AB12',
      workspace: 'T1',
      jobs: [],
      totalCount: 0,
      pageIndex: 1,
      pageUnit: 10,
      filters: { from: '2026-03-10' },
      timeZone: SEOUL,
    });
    expect(JSON.stringify(m)).toContain('dates and times in your time zone (Asia/Seoul)');
    const r = recipientListMessage({
      siteId: 'AB12',
      workspace: 'T1',
      items: [],
      totalCount: 0,
      pageIndex: 1,
      pageUnit: 10,
      filters: { to: '2026-03-10' },
      timeZone: SEOUL,
    });
    expect(JSON.stringify(r)).toContain('dates and times in your time zone (Asia/Seoul)');
  });
});

describe('date words', () => {
  it("today and 1d are the reader's days: at 20:00 UTC on 2026-03-09 it is already 2026-03-10 in Seoul", () => {
    const now = Date.parse('2026-03-09T20:00:00Z');
    expect(readerDateWords({ from: '1d', to: 'today' }, SEOUL, now)).toEqual({
      from: '2026-03-09',
      to: '2026-03-10',
    });
    expect(readerDateWords({ from: 'today' }, 'UTC', now)).toEqual({ from: '2026-03-09' });
    expect(readerDateWords({ from: 'not-a-date' }, SEOUL, now)).toEqual({ from: 'not-a-date' });
  });
});

describe('additional-site requests by day', () => {
  const request = (seq: number, iso: string) => ({
    seq,
    accountId: 'acct',
    siteId: '',
    serviceName: `Site ${seq}`,
    status: 'requested',
    updateTime: tv(iso),
    regTime: tv(iso),
  });

  it("from:/to: are the reader's days: the covering UTC days are asked for, only the Seoul day is listed, the reply names the zone", async () => {
    const c = new FakeServiceClient();
    c.siteRequests = [
      request(1, before.regTime.raw),
      request(2, early.regTime.raw),
      request(3, late.regTime.raw),
      request(4, after.regTime.raw),
    ];
    const p = await listSiteRequests(c, { from: '2026-03-10', to: '2026-03-10', timeZone: SEOUL });
    expect(c.callsOf('listAdditionalSiteRequests')[0]?.args[0]).toMatchObject({
      from: '2026-03-09',
      to: '2026-03-10',
    });
    expect(p.items.map((r) => r.seq)).toEqual([2, 3]);
    const m = JSON.stringify(
      siteRequestsMessage(
        p,
        { from: '2026-03-10', to: '2026-03-10' },
        { workspace: 'T1', timeZone: SEOUL, userId: 'U1', atMs: 0, refId: 'r' },
      ),
    );
    expect(m).toContain('Dates on 2026-03-10, in your time zone (Asia/Seoul)');
    // Without a zone the days are UTC days.
    const utc = await listSiteRequests(c, { from: '2026-03-10', to: '2026-03-10' });
    expect(utc.items.map((r) => r.seq)).toEqual([3, 4]);
  });
});
