/**
 * The poll cycle against a service that follows the spec but answers differently from the
 * emulator: how it says "no such job", how it spells codes, how it pages. Driven through
 * `runCycle` with a scripted client and an in-memory store (no network).
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError, TransportError } from '../../src/api/errors.js';
import { parseServiceTime } from '../../src/api/time.js';
import type { Job, JobSearchQuery, WatermarkingClient } from '../../src/api/types.js';
import type { OutboxEntry } from '../../src/watch/outbox.js';
import type { PollState } from '../../src/watch/poll-state.js';
import { type CycleContext, MAX_LOOKUP_MISSES, runCycle } from '../../src/watch/poller.js';

const T0 = Date.parse('2026-11-27T11:00:00Z');

function job(id: number, status: string, time = '2026-11-27T10:30:00'): Job {
  return {
    jobId: id,
    contentId: `c${id}`,
    status: status as Job['status'],
    regTime: parseServiceTime(time),
    updateTime: parseServiceTime(time),
  };
}

interface Rig {
  ctx: CycleContext;
  jobs: Job[];
  added: OutboxEntry[];
  state: () => PollState;
  calls: string[];
  advance: () => void;
}

/**
 * A site whose service holds `jobs`. `cap`: the most items the service puts on one page whatever
 * page_unit asks; `noTotal`: total_count left out; `getJob`: override of the single-job lookup.
 */
function rig(
  initial: Job[],
  opts: {
    cap?: number;
    noTotal?: boolean;
    getJob?: (id: number) => Promise<Job>;
    /** The service reads `from` as a date in this offset (minutes), whatever time_zone says. */
    fromZoneMinutes?: number;
    start?: number;
  } = {},
): Rig {
  const docs = new Map<string, unknown>();
  const store = {
    docs: () => ({
      get: async (w: string, s: string) => docs.get(`${w}|${s}`),
      put: async (w: string, s: string, v: unknown) => {
        docs.set(`${w}|${s}`, structuredClone(v));
      },
    }),
  };
  const added: OutboxEntry[] = [];
  const calls: string[] = [];
  const r: Rig = {
    jobs: initial,
    added,
    calls,
    state: () => docs.get('T1|AB12') as PollState,
    advance: () => {
      now += 60_000;
    },
    ctx: undefined as unknown as CycleContext,
  };
  const client = {
    searchJobs: async (_s: string, q: JobSearchQuery) => {
      calls.push(`search:${(q.statuses ?? []).join(',')}:${q.pageIndex}`);
      const wanted = new Set(q.statuses);
      const fromMs =
        q.from && opts.fromZoneMinutes !== undefined
          ? Date.parse(`${q.from}T00:00:00Z`) - opts.fromZoneMinutes * 60_000
          : q.from
            ? Date.parse(`${q.from}T00:00:00Z`)
            : Number.NEGATIVE_INFINITY;
      const all = r.jobs.filter((j) => wanted.has(j.status) && (j.regTime.epochMs ?? 0) >= fromMs);
      const unit = Math.min(q.pageUnit ?? 25, opts.cap ?? 1000);
      const pageIndex = q.pageIndex ?? 1;
      const items = all.slice((pageIndex - 1) * unit, pageIndex * unit);
      return {
        items,
        totalCount: opts.noTotal ? (pageIndex - 1) * unit + items.length : all.length,
        ...(opts.noTotal ? { totalUnknown: true } : {}),
        pageIndex,
        pageUnit: q.pageUnit ?? 25,
        timeZone: '+00:00',
      };
    },
    getJob: async (_s: string, id: number) => {
      calls.push(`getJob:${id}`);
      if (opts.getJob) return opts.getJob(id);
      const j = r.jobs.find((x) => x.jobId === id);
      if (!j) throw new TransportError('wm.getJob', 'wm.getJob: the service answered HTTP 404', 404, 1);
      return j;
    },
    getJobTasks: async () => ({ items: [], totalCount: 0, pageIndex: 1, pageUnit: 1, timeZone: '+00:00' }),
  } as unknown as WatermarkingClient;
  let now = opts.start ?? T0;
  r.ctx = {
    store: store as unknown as CycleContext['store'],
    outbox: {
      add: async (e: OutboxEntry[]) => {
        added.push(...e);
        return e.length;
      },
    } as unknown as CycleContext['outbox'],
    client,
    workspace: 'T1',
    siteId: 'AB12',
    subscriptions: [
      {
        id: 's1',
        channelId: 'C1',
        siteId: 'AB12',
        createdAt: '2026-11-27T10:00:00Z',
        paused: false,
        statuses: [],
      } as unknown as CycleContext['subscriptions'][number],
    ],
    now: () => now,
    checkpoint: async () => {},
  };
  return r;
}

const finalsOf = (r: Rig, id: number) =>
  r.added.filter((e) => e.jobId === id && e.kind === 'thread' && e.key.includes('|final:')).map((e) => e.key);

describe('a departed job the service no longer knows', () => {
  for (const [name, failure] of [
    ['HTTP 404', () => new TransportError('wm.getJob', 'wm.getJob: the service answered HTTP 404', 404, 1)],
    ['HTTP 410', () => new TransportError('wm.getJob', 'wm.getJob: the service answered HTTP 410', 410, 1)],
    ['a 200 with data null', () => new ProtocolError('wm.getJob', 'data', 'expected object, received null')],
  ] as const) {
    it(`(${name}) is a lookup miss: the site's cycles go on and the job is forgotten after the misses`, async () => {
      const r = rig([job(1, 'DM001'), job(2, 'DM001')], {
        getJob: async () => {
          throw failure();
        },
      });
      await runCycle(r.ctx);
      r.jobs = [job(2, 'DM001')]; // job 1 purged upstream: in neither list
      for (let i = 1; i < MAX_LOOKUP_MISSES; i++) {
        r.advance();
        await runCycle(r.ctx);
        expect(r.state().jobs['1']?.x).toBe(i);
      }
      r.advance();
      await runCycle(r.ctx);
      expect(r.state().jobs['1']).toBeUndefined();
      expect(r.state().jobs['2']).toBeDefined();
    });
  }

  it('a network failure of the lookup still stops the cycle (retried later, nothing forgotten)', async () => {
    const r = rig([job(1, 'DM001')], {
      getJob: async () => {
        throw new TransportError('wm.getJob', 'wm.getJob: connection refused', undefined, 1);
      },
    });
    await runCycle(r.ctx);
    r.jobs = [];
    r.advance();
    await expect(runCycle(r.ctx)).rejects.toBeInstanceOf(TransportError);
    expect(r.state().jobs['1']?.x).toBeUndefined();
  });

  it('a workflow wait on a job the service answers 404 for does not stop the cycle', async () => {
    const r = rig([job(2, 'DM001')]);
    const waitItems: unknown[] = [];
    r.ctx.waits = {
      waits: [{ executionId: 'e1', target: '77', kind: 'job', siteId: 'AB12' } as never],
      outbox: { add: async (i: unknown[]) => waitItems.push(...i) } as never,
      jobOutputs: () => ({}),
    };
    await runCycle(r.ctx);
    r.advance();
    await runCycle(r.ctx);
    expect(r.calls).toContain('getJob:77');
    expect(waitItems).toEqual([]);
  });
});

describe('a departed job whose status the specs do not list', () => {
  it('is final and announced (as the code it has) once that status has stood an hour, then not looked up again', async () => {
    const r = rig([job(1, 'DM001'), job(2, 'DM001')]);
    await runCycle(r.ctx);
    // DM700 since 09:00 (two hours before this cycle): settled.
    r.jobs = [job(1, 'DM700', '2026-11-27T09:00:00'), job(2, 'DM001')];
    r.advance();
    await runCycle(r.ctx);
    expect(finalsOf(r, 1)).toEqual(['T1|C1|1|final:DM700']);
    expect(r.state().jobs['1']).toBeUndefined();
    r.calls.length = 0;
    r.advance();
    await runCycle(r.ctx);
    expect(r.calls).not.toContain('getJob:1');
  });

  it('a job passing through an unlisted status is kept and gets its real end announced', async () => {
    const r = rig([job(1, 'DM001'), job(2, 'DM001')]);
    await runCycle(r.ctx);
    r.jobs = [job(1, 'DM002', '2026-11-27T11:00:30'), job(2, 'DM001')];
    r.advance();
    await runCycle(r.ctx);
    expect(finalsOf(r, 1)).toEqual([]);
    expect(r.state().jobs['1']).toMatchObject({ k: T0 + 60_000 });
    r.calls.length = 0;
    r.advance();
    await runCycle(r.ctx);
    expect(r.calls).toContain('getJob:1');
    expect(finalsOf(r, 1)).toEqual([]);
    // It reaches COMPLETED (reg time keeps it out of the terminal window query: the lookup finds it).
    r.jobs = [job(1, 'DM500', '2026-11-27T11:03:00'), job(2, 'DM001')];
    r.advance();
    await runCycle(r.ctx);
    expect(finalsOf(r, 1)).toEqual(['T1|C1|1|final:DM500']);
  });

  it('an unlisted status without a readable update time is final an hour after the watcher first saw it', async () => {
    const r = rig([job(1, 'DM001'), job(2, 'DM001')]);
    await runCycle(r.ctx);
    const stuck: Job = { ...job(1, 'DM900'), updateTime: parseServiceTime('') };
    r.jobs = [stuck, job(2, 'DM001')];
    for (let i = 0; i < 60; i++) {
      r.advance();
      await runCycle(r.ctx);
      expect(finalsOf(r, 1)).toEqual([]);
    }
    r.advance();
    await runCycle(r.ctx);
    expect(finalsOf(r, 1)).toEqual(['T1|C1|1|final:DM900']);
  });

  it('a departed job still in an in-flight status is kept and looked up again', async () => {
    const r = rig([job(1, 'DM001')]);
    await runCycle(r.ctx);
    r.jobs = [];
    const stillMoving = job(1, 'DM001');
    r.ctx.client.getJob = async () => stillMoving;
    r.advance();
    await runCycle(r.ctx);
    expect(r.state().jobs['1']).toBeDefined();
    expect(finalsOf(r, 1)).toEqual([]);
  });

  it('a workflow wait on a job whose unlisted status has stood an hour completes; a fresh one waits on', async () => {
    const fresh = rig([job(2, 'DM001'), job(77, 'DM800', '2026-11-27T10:59:00')]);
    const pending: unknown[] = [];
    fresh.ctx.waits = {
      waits: [{ executionId: 'e0', target: '77', kind: 'job', siteId: 'AB12' } as never],
      outbox: { add: async (i: unknown[]) => pending.push(...i) } as never,
      jobOutputs: (j) => ({ status: j.status }),
    };
    await runCycle(fresh.ctx);
    expect(pending).toEqual([]);
    const r = rig([job(2, 'DM001'), job(77, 'DM800', '2026-11-27T09:00:00')]);
    const waitItems: unknown[] = [];
    r.ctx.waits = {
      waits: [{ executionId: 'e1', target: '77', kind: 'job', siteId: 'AB12' } as never],
      outbox: { add: async (i: unknown[]) => waitItems.push(...i) } as never,
      jobOutputs: (j) => ({ status: j.status }),
    };
    await runCycle(r.ctx);
    expect(waitItems).toMatchObject([
      { executionId: 'e1', result: { ok: true, outputs: { status: 'DM800' } } },
    ]);
  });
});

describe('paging of the watcher queries', () => {
  for (const [name, opts] of [
    ['caps pages at 100', { cap: 100 }],
    ['caps pages at 100 and leaves total_count out', { cap: 100, noTotal: true }],
  ] as const) {
    it(`sees every in-flight job and finishes of a service that ${name}`, async () => {
      const many = Array.from({ length: 250 }, (_, i) => job(i + 1, 'DM001'));
      const r = rig(many, opts);
      const base = await runCycle(r.ctx);
      expect(base.inflight).toBe(250);
      r.jobs = many.map((j) => (j.jobId === 249 ? job(249, 'DM500', '2026-11-27T11:00:30') : j));
      r.advance();
      await runCycle(r.ctx);
      expect(finalsOf(r, 249)).toEqual(['T1|C1|249|final:DM500']);
      expect(Object.keys(r.state().jobs)).toHaveLength(249);
    });
  }

  it('keeps a job listed on two pages once, and stops when a page brings nothing new', async () => {
    const r = rig([job(1, 'DM001'), job(2, 'DM001')]);
    let n = 0;
    r.ctx.client.searchJobs = async (_s, q = {}) => {
      n++;
      const items = q.statuses?.includes('DM001') ? [job(1, 'DM001'), job(2, 'DM001')] : [];
      return { items, totalCount: 99, pageIndex: q.pageIndex ?? 1, pageUnit: 1000, timeZone: '+00:00' };
    };
    const base = await runCycle(r.ctx);
    expect(base.inflight).toBe(2);
    expect(n).toBe(3); // terminal: 1 empty page; in flight: page 1, then page 2 with nothing new
  });
});

describe('the finished-jobs window', () => {
  it('a service that reads `from` in a zone behind UTC still returns a job that ran between two polls', async () => {
    // 01:00Z on the 27th is still the 26th at -05:00: a `from` of the 27th read there starts at 05:00Z.
    const start = Date.parse('2026-11-27T01:00:00Z');
    const r = rig([job(1, 'DM001', '2026-11-27T00:30:00')], { fromZoneMinutes: -300, start });
    (r.ctx.subscriptions[0] as { createdAt: string }).createdAt = '2026-11-27T00:00:00Z';
    await runCycle(r.ctx);
    r.jobs = [job(1, 'DM001', '2026-11-27T00:30:00'), job(2, 'DM500', '2026-11-27T01:00:20')];
    r.advance();
    await runCycle(r.ctx);
    expect(finalsOf(r, 2)).toEqual(['T1|C1|2|final:DM500']);
  });
});
