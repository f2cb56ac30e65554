import { afterEach, describe, expect, it } from 'vitest';
import type { Watcher } from '../../src/watch/index.js';
import { DeliveryError, type WatchFilters } from '../../src/watch/types.js';
import { type Harness, SITE, SITE2, startHarness, WS } from './support/harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function sub(w: Watcher, channelId: string, filters: Partial<WatchFilters> = {}, siteId = SITE) {
  return (
    await w.subscriptions.create(WS, {
      channelId,
      siteId,
      filters: { statuses: [], mode: 'all', ...filters },
      createdBy: 'U123',
    })
  ).subscription;
}

function newJob(content = 'trailer-01', recipients = ['alice', 'bob']): number {
  return h.emu.createJob(
    SITE,
    content,
    recipients.map((r) => ({ recipient: r })),
  );
}

function dwmIds(jobId: number): Promise<number[]> {
  return h.api
    .watermarking(h.creds.watermarking as NonNullable<typeof h.creds.watermarking>)
    .getJobTasks(SITE, jobId)
    .then((p) => p.items.map((t) => t.dwmId));
}

/** More than the default clock allowance (WATCH_CLOCK_ALLOWANCE_SECONDS, 5 s). */
const AFTER_ALLOWANCE = 10_000;

/** Advance a poll interval and poll. */
async function cycle(w: Watcher, site = SITE) {
  h.tick();
  return w.pollOnce(WS, site);
}

describe('watcher against the emulator', () => {
  it('first poll is silent about what predates the watch; a job that finishes later is notified once per channel', async () => {
    h = await startHarness();
    const w = h.watcher();
    const old = newJob('old-finished');
    h.emu.finishJob(SITE, old);
    const running = newJob('running-at-start');
    // The watch comes after those jobs moved by more than the clock allowance (a change within
    // it is announced: see 'a job that finished in the same second as the watch').
    h.tick(AFTER_ALLOWANCE);
    await sub(w, 'C1');
    await sub(w, 'C2');

    const first = await w.pollOnce(WS, SITE);
    expect(first.cycle?.baseline).toBe(true);
    expect(h.poster.messages).toHaveLength(0);

    h.tick();
    h.emu.finishJob(SITE, running);
    await cycle(w);
    await cycle(w);
    await cycle(w);
    for (const ch of ['C1', 'C2']) {
      const visible = h.poster.visible(ch);
      expect(visible).toHaveLength(1);
      expect(visible[0]?.text).toContain(`Job \`${running}\``);
      expect(visible[0]?.text).toContain('COMPLETED');
    }
    expect(h.poster.messages.some((m) => m.text.includes(`\`${old}\``))).toBe(false);
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('a channel subscribing to a site already polled hears nothing older than its first cycle', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    const running = newJob('running-before-c2');
    const other = newJob('other-before-c2');
    await w.pollOnce(WS, SITE); // baseline for the site
    // Both jobs move before C2 subscribes; the site keeps its poll state (C1).
    h.tick();
    h.emu.finishJob(SITE, running);
    h.emu.setJobStatus(SITE, other, 'DM001');
    h.tick(AFTER_ALLOWANCE);
    await sub(w, 'C2');
    await cycle(w);
    expect(
      h.poster
        .visible('C1')
        .map((m) => m.text)
        .join('\n'),
    ).toContain(`Job \`${running}\``);
    // C2's first cycle is silent: those changes predate it (by the jobs' own times).
    expect(h.poster.messages.filter((m) => m.channel === 'C2')).toEqual([]);
    // From the next cycle on, C2 hears of every change.
    h.tick();
    h.emu.finishJob(SITE, other);
    await cycle(w);
    await cycle(w);
    const c2 = h.poster.messages.filter((m) => m.channel === 'C2');
    expect(c2.map((m) => m.text).join('\n')).toContain(`Job \`${other}\``);
    expect(c2.map((m) => m.text).join('\n')).not.toContain(`Job \`${running}\``);
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('watching a site again after every watch was removed does not replay what happened meanwhile', async () => {
    h = await startHarness();
    const w = h.watcher();
    const first = await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    await w.subscriptions.remove(WS, { id: first.id });
    // Meanwhile (no watch, no polling): jobs start and finish.
    const meanwhile = newJob('meanwhile-done');
    h.emu.finishJob(SITE, meanwhile);
    const stillRunning = newJob('meanwhile-running');
    h.tick();
    h.tick();
    await sub(w, 'C1');
    await cycle(w);
    expect(h.poster.messages).toEqual([]);
    h.tick();
    h.emu.finishJob(SITE, stillRunning);
    await cycle(w);
    await cycle(w);
    const text = h.poster
      .visible('C1')
      .map((m) => m.text)
      .join('\n');
    expect(text).toContain(`Job \`${stillRunning}\``);
    expect(text).not.toContain(`Job \`${meanwhile}\``);
  });

  it('edits the parent card in place, threads progress, broadcasts completion (mode all)', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    const job = newJob('movie-42');
    await cycle(w);
    const card = h.poster.cardOf('C1', job);
    expect(card?.text).toContain('READY');

    h.tick();
    h.emu.setJobStatus(SITE, job, 'DM001');
    await cycle(w);
    expect(card?.updates.at(-1)).toContain('PREPROCESSING');
    expect(
      h.poster
        .inThread('C1', card?.ts ?? '')
        .map((m) => m.text)
        .join('\n'),
    ).toContain('moved from READY');

    h.tick();
    h.emu.finishJob(SITE, job);
    await cycle(w);
    await cycle(w);
    expect(card?.updates.at(-1)).toContain('COMPLETED');
    const thread = h.poster.inThread('C1', card?.ts ?? '');
    const finals = thread.filter((m) => m.key.endsWith('|final:DM500'));
    expect(finals).toHaveLength(1);
    expect(finals[0]?.broadcast).toBe(true);
    expect(h.poster.topLevel('C1')).toHaveLength(1);
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('mode failures broadcasts failures only; task failures are reported; filters apply', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'CALL');
    await sub(w, 'CFAIL', { mode: 'failures' });
    await sub(w, 'CFINAL', { statuses: ['DM500', 'DM600'] });
    await sub(w, 'CPREFIX', { content: 'promo-*' });
    await w.pollOnce(WS, SITE);
    const ok = newJob('trailer-ok');
    const bad = newJob('promo-bad', ['carol', 'dave']);
    await cycle(w);
    h.tick();
    h.emu.finishJob(SITE, ok);
    const [carol] = await dwmIds(bad);
    h.emu.finishJob(SITE, bad, { failDwmIds: [carol as number], cliErrorCode: 'E-417' });
    await cycle(w);

    const bcast = (ch: string) =>
      h.poster.messages.filter((m) => m.channel === ch && m.broadcast).map((m) => m.key);
    expect(bcast('CALL').sort()).toEqual(
      [`${WS}|CALL|${bad}|final:DM600`, `${WS}|CALL|${ok}|final:DM500`].sort(),
    );
    expect(bcast('CFAIL')).toEqual([`${WS}|CFAIL|${bad}|final:DM600`]);
    // completion still reaches the CFAIL thread, quietly
    expect(h.poster.messages.some((m) => m.key === `${WS}|CFAIL|${ok}|final:DM500` && !m.broadcast)).toBe(
      true,
    );
    // status filter: no card while in flight; the final card itself is the notice (no broadcast)
    const finalCards = h.poster.topLevel('CFINAL');
    expect(finalCards.map((m) => m.key).sort()).toEqual(
      [`${WS}|CFINAL|${ok}|card:DM500`, `${WS}|CFINAL|${bad}|card:DM600`].sort(),
    );
    expect(bcast('CFINAL')).toEqual([]);
    // content prefix filter
    expect(
      h.poster.messages.filter((m) => m.channel === 'CPREFIX').every((m) => m.key.includes(`|${bad}|`)),
    ).toBe(true);
    expect(h.poster.visible('CPREFIX').length).toBeGreaterThan(0);
    const failedText = h.poster.messages.find((m) => m.key === `${WS}|CALL|${bad}|final:DM600`)?.text ?? '';
    expect(failedText).toContain('carol');
    expect(failedText).toContain('E-417');
  });

  it('catches jobs that start and finish between two polls', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    h.tick(30_000);
    const quick = newJob('quick-one');
    h.emu.finishJob(SITE, quick);
    await cycle(w);
    const v = h.poster.visible('C1');
    expect(v).toHaveLength(1);
    expect(v[0]?.key).toBe(`${WS}|C1|${quick}|card:DM500`);
    await cycle(w);
    expect(h.poster.visible('C1')).toHaveLength(1);
  });

  it('a job that starts and finishes between /dwm watch and the first poll is announced', async () => {
    h = await startHarness();
    const w = h.watcher();
    const before = newJob('before-watch');
    h.emu.finishJob(SITE, before);
    const runningBefore = newJob('running-before-watch');
    h.tick(AFTER_ALLOWANCE);
    await sub(w, 'C1');
    h.tick(20_000);
    const quick = newJob('quick-after-watch');
    h.emu.finishJob(SITE, quick);
    const started = newJob('started-after-watch');
    const first = await w.pollOnce(WS, SITE);
    expect(first.cycle?.baseline).toBe(true);
    const keys = h.poster.messages.map((m) => m.key);
    expect(keys).toContain(`${WS}|C1|${quick}|card:DM500`);
    expect(keys).toContain(`${WS}|C1|${quick}|final:DM500`);
    expect(h.poster.cardOf('C1', started)).toBeDefined();
    // Nothing that predates the subscription (by the jobs' own times).
    expect(keys.some((k) => k.includes(`|${before}|`) || k.includes(`|${runningBefore}|`))).toBe(false);
    // Later cycles do not repeat them; the job started after the watch is followed to its end.
    h.emu.finishJob(SITE, started);
    await cycle(w);
    await cycle(w);
    expect(h.poster.messages.some((m) => m.key === `${WS}|C1|${started}|final:DM500`)).toBe(true);
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('a first poll long after the watch looks back 24 hours, not to the watch', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    h.tick(3600_000);
    const old = newJob('two-days-before-first-poll');
    h.emu.finishJob(SITE, old);
    h.tick(47 * 3600_000);
    const recent = newJob('an-hour-before-first-poll');
    h.emu.finishJob(SITE, recent);
    h.tick(3600_000);
    await w.pollOnce(WS, SITE);
    const keys = h.poster.messages.map((m) => m.key);
    expect(keys).toContain(`${WS}|C1|${recent}|final:DM500`);
    expect(keys.some((k) => k.includes(`|${old}|`))).toBe(false);
  });

  it('a new watch on a site already polled hears, in its first cycle, every change after its creation', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    const running = newJob('running-before-c2');
    await w.pollOnce(WS, SITE); // the site is polled for C1
    h.tick(10_000);
    await sub(w, 'C2');
    h.tick(5000);
    h.emu.finishJob(SITE, running); // after C2 exists
    const quick = newJob('quick-after-c2');
    h.emu.finishJob(SITE, quick);
    await cycle(w); // C2's first cycle
    for (const job of [running, quick]) {
      expect(h.poster.messages.some((m) => m.key === `${WS}|C2|${job}|final:DM500`)).toBe(true);
      expect(h.poster.messages.some((m) => m.key === `${WS}|C1|${job}|final:DM500`)).toBe(true);
    }
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('a job that finished in the same second as the watch, or a moment before it, is announced', async () => {
    h = await startHarness();
    const w = h.watcher();
    const older = newJob('well-before-watch');
    h.emu.finishJob(SITE, older);
    h.tick(AFTER_ALLOWANCE);
    const moment = newJob('a-moment-before-watch');
    h.emu.finishJob(SITE, moment);
    h.tick(2000);
    const same = newJob('same-second-as-watch');
    h.emu.finishJob(SITE, same);
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    const keys = h.poster.messages.map((m) => m.key);
    expect(keys).toContain(`${WS}|C1|${same}|card:DM500`);
    expect(keys).toContain(`${WS}|C1|${moment}|card:DM500`);
    expect(keys.some((k) => k.includes(`|${older}|`))).toBe(false);
  });

  it("a service whose clock is behind the bot's: a job that finishes after the watch is announced in the first cycle", async () => {
    h = await startHarness();
    // The service stamps times (and its Date header) ten minutes behind the bot's clock.
    h.emu.setBehaviours({ clockSkewMs: -10 * 60_000 });
    const w = h.watcher();
    const before = newJob('finished-an-hour-before');
    h.emu.finishJob(SITE, before);
    h.tick(3600_000);
    await sub(w, 'C1');
    h.tick(20_000);
    const after = newJob('finished-after-watch');
    h.emu.finishJob(SITE, after);
    const first = await w.pollOnce(WS, SITE);
    expect(first.cycle?.baseline).toBe(true);
    const keys = h.poster.messages.map((m) => m.key);
    expect(keys).toContain(`${WS}|C1|${after}|card:DM500`);
    expect(keys.some((k) => k.includes(`|${before}|`))).toBe(false);
    // A second watch on the now polled site, in its first cycle, too.
    await sub(w, 'C2');
    h.tick(1000);
    const later = newJob('finished-after-second-watch');
    h.emu.finishJob(SITE, later);
    await cycle(w);
    expect(h.poster.messages.map((m) => m.key)).toContain(`${WS}|C2|${later}|card:DM500`);
  });

  it('with no allowance, a change stamped before the watch by a clock in step is not announced', async () => {
    h = await startHarness();
    const w = h.watcher({ clockAllowanceMs: 0 });
    const before = newJob('two-seconds-before');
    h.emu.finishJob(SITE, before);
    h.tick(2000);
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    expect(h.poster.messages).toEqual([]);
  });

  it('a burst of more than 5 completions becomes one digest per channel', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    const jobs = Array.from({ length: 7 }, (_, i) => newJob(`ep-${i}`));
    await cycle(w);
    expect(h.poster.topLevel('C1')).toHaveLength(7);
    const before = h.poster.messages.length;
    h.tick();
    for (const j of jobs) h.emu.finishJob(SITE, j);
    await cycle(w);
    const newMsgs = h.poster.messages.slice(before);
    expect(newMsgs).toHaveLength(1);
    expect(newMsgs[0]?.text).toContain('7 jobs finished');
    for (const j of jobs) expect(h.poster.cardOf('C1', j)?.updates.at(-1)).toContain('COMPLETED');
    await cycle(w);
    expect(h.poster.messages.length).toBe(before + 1);
  });

  it('a change that happened while the bot was down is notified after restart', async () => {
    h = await startHarness();
    const w1 = h.watcher();
    const job = newJob('overnight');
    h.tick(AFTER_ALLOWANCE);
    await sub(w1, 'C1');
    await w1.pollOnce(WS, SITE);
    await w1.stop();
    h.tick(6 * 3600_000);
    h.emu.finishJob(SITE, job);
    h.tick(6 * 3600_000);
    const w2 = h.watcher();
    await w2.pollOnce(WS, SITE);
    expect(h.poster.visible('C1').map((m) => m.key)).toEqual([`${WS}|C1|${job}|card:DM500`]);
  });

  it('calls per cycle equal ceil(inflight/1000) + 1 + changed', async () => {
    h = await startHarness();
    const w = h.watcher();
    const ids = h.emu.bulkCreateJobs(SITE, 2300, { status: 'DM001', tasksPerJob: 1 });
    h.tick(AFTER_ALLOWANCE);
    await sub(w, 'C1');
    h.emu.resetRequestCounts();
    const base = await w.pollOnce(WS, SITE);
    const c0 = h.emu.requestCounts();
    expect(c0['GET /wm/api/job/:siteId']).toBe(3 + 1);
    expect(base.cycle?.calls).toBe(4);
    h.tick();
    for (const id of ids.slice(0, 4)) h.emu.finishJob(SITE, id);
    for (const id of ids.slice(10, 13)) h.emu.setJobStatus(SITE, id, 'DM001'); // update_time moves
    const quick = newJob('between-polls');
    h.emu.finishJob(SITE, quick);
    h.tick(1000);
    h.emu.resetRequestCounts();
    const r = await w.pollOnce(WS, SITE);
    const c = h.emu.requestCounts();
    const changed = 4 + 3 + 1;
    expect(r.cycle?.changed).toBe(changed);
    expect(c['GET /wm/api/job/:siteId']).toBe(Math.ceil(2296 / 1000) + 1);
    expect(c['GET /wm/api/job/:siteId/:jobId/recipient']).toBe(changed);
    expect(c['GET /wm/api/job/:siteId/:jobId'] ?? 0).toBe(0);
    expect(r.cycle?.calls).toBe(Math.ceil(2296 / 1000) + 1 + changed);
  });
});

describe('delivery failures', () => {
  it('crash after posting, before marking: a new instance neither loses nor duplicates', async () => {
    h = await startHarness();
    const w1 = h.watcher();
    await sub(w1, 'C1');
    await w1.pollOnce(WS, SITE);
    const a = newJob('crash-a');
    const b = newJob('crash-b');
    let armed = true;
    h.poster.faults.push((call) => {
      if (call === 'post' && armed) {
        armed = false;
        return 'after';
      }
      return undefined;
    });
    await cycle(w1);
    expect(h.poster.messages).toHaveLength(1); // posted, then "died"
    await w1.stop();

    const w2 = h.watcher({ holderId: 'holder-A' });
    await cycle(w2);
    expect(h.poster.duplicateKeys()).toEqual([]);
    expect(
      h.poster
        .topLevel('C1')
        .map((m) => m.key)
        .sort(),
    ).toEqual([`${WS}|C1|${a}|card:DM000:0+0/2`, `${WS}|C1|${b}|card:DM000:0+0/2`].sort());
    // the recovered card is known as the parent: the completion edits it in place
    h.tick();
    h.emu.finishJob(SITE, a);
    await cycle(w2);
    expect(h.poster.cardOf('C1', a)?.updates.at(-1)).toContain('COMPLETED');
    expect(h.poster.topLevel('C1')).toHaveLength(2);
  });

  it('crash before posting (entry marked sending) posts exactly once after restart', async () => {
    h = await startHarness();
    const w1 = h.watcher();
    await sub(w1, 'C1');
    await w1.pollOnce(WS, SITE);
    const a = newJob('crash-before');
    h.poster.faults.push(() => 'before');
    await cycle(w1);
    expect(h.poster.messages).toHaveLength(0);
    await w1.stop();
    h.poster.faults = [];
    const w2 = h.watcher();
    await cycle(w2);
    expect(h.poster.topLevel('C1').map((m) => m.key)).toEqual([`${WS}|C1|${a}|card:DM000:0+0/2`]);
  });

  it('crash between outbox write and poll-state save: re-detection dedupes', async () => {
    h = await startHarness();
    const w1 = h.watcher();
    await sub(w1, 'C1');
    await w1.pollOnce(WS, SITE);
    const job = newJob('state-crash');
    await cycle(w1);
    h.tick();
    h.emu.finishJob(SITE, job);
    // Make the poll-state write fail once (the process "dies" there).
    const docs = h.store.docs.bind(h.store);
    let fail = true;
    const patched = Object.create(h.store) as typeof h.store;
    patched.docs = <T>(ns: string) => {
      const repo = docs<T>(ns);
      if (ns !== 'watch-pollstate') return repo;
      return {
        ...repo,
        put: async (...args: Parameters<typeof repo.put>) => {
          if (fail) {
            fail = false;
            throw new Error('simulated crash before the poll state was saved');
          }
          return repo.put(...args);
        },
      };
    };
    const w2 = h.watcher({ store: patched });
    const crashed = await w2.pollOnce(WS, SITE);
    expect(crashed.error).toBe('unexpected');
    await w1.stop();
    await w2.stop();
    const w3 = h.watcher();
    await cycle(w3);
    await cycle(w3);
    const finals = h.poster.messages.filter((m) => m.key === `${WS}|C1|${job}|final:DM500`);
    expect(finals).toHaveLength(1);
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('a 429 storm delays but loses nothing, and paces 1 message/s per channel', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    const jobs = Array.from({ length: 4 }, (_, i) => newJob(`storm-${i}`));
    let limited = 12;
    h.poster.faults.push(() =>
      limited-- > 0 ? new DeliveryError('ratelimited', { retryAfterMs: 7000 }) : undefined,
    );
    const slept0 = h.clock.slept;
    const r1 = await cycle(w);
    expect(r1.delivery?.deferred).toBeGreaterThan(0);
    for (let i = 0; i < 5 && h.poster.topLevel('C1').length < 4; i++) await cycle(w);
    expect(
      h.poster
        .topLevel('C1')
        .map((m) => Number(m.key.split('|')[2]))
        .sort(),
    ).toEqual([...jobs].sort());
    expect(h.poster.duplicateKeys()).toEqual([]);
    expect(h.clock.slept - slept0).toBeGreaterThanOrEqual(7000 * 4);
    expect(limited).toBeLessThanOrEqual(0);
  });

  it('5xx retries with backoff and then delivers', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    const job = newJob('flaky');
    let n = 3;
    h.poster.faults.push(() => (n-- > 0 ? new DeliveryError('http_503', { httpStatus: 503 }) : undefined));
    await cycle(w);
    expect(h.poster.topLevel('C1').map((m) => m.key)).toEqual([`${WS}|C1|${job}|card:DM000:0+0/2`]);
    expect(n).toBeLessThan(0);
  });

  it('a permanent error pauses the subscription and emits subscription-paused; others continue', async () => {
    h = await startHarness();
    const w = h.watcher();
    const gone = await sub(w, 'CGONE');
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    newJob('perm');
    h.poster.faults.push((_call, ch) => (ch === 'CGONE' ? new DeliveryError('not_in_channel') : undefined));
    await cycle(w);
    const paused = await w.subscriptions.get(WS, gone.id);
    expect(paused?.paused?.code).toBe('not_in_channel');
    const ev = h.events.find((e) => e.type === 'subscription-paused');
    expect(ev).toMatchObject({ type: 'subscription-paused', code: 'not_in_channel' });
    expect(ev && 'message' in ev ? ev.message : '').toMatch(/\/dwm watch/);
    expect(h.poster.topLevel('C1')).toHaveLength(1);
    expect((await w.outbox.size(WS)) === 0).toBe(true);
    // re-running /dwm watch resumes it
    const again = await w.subscriptions.create(WS, {
      channelId: 'CGONE',
      siteId: SITE,
      filters: { statuses: [], mode: 'all' },
      createdBy: 'U9',
    });
    expect(again.outcome).toBe('resumed');
  });
});

describe('polling control', () => {
  it('an AuthError pauses the workspace with one admin alert until resume()', async () => {
    h = await startHarness();
    const w = h.watcher();
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    h.emu.faults.add({ match: '/wm/', status: 401 });
    await cycle(w);
    await cycle(w);
    await cycle(w);
    expect(h.events.filter((e) => e.type === 'admin-alert')).toHaveLength(1);
    expect((await h.store.settings.get(WS)).pollingPausedReason).toMatch(/\/dwm setup/);
    const skipped = await cycle(w);
    expect(skipped.skipped).toBe('paused');
    h.emu.faults.clear();
    await w.resume(WS);
    const job = newJob('after-resume');
    const r = await cycle(w);
    expect(r.cycle).toBeDefined();
    expect(h.poster.cardOf('C1', job)).toBeDefined();
  });

  it('service errors back off per site, exponentially and capped', async () => {
    h = await startHarness();
    const w = h.watcher({ maxBackoffMs: 8 * 60_000 });
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    h.emu.faults.add({ match: '/wm/api/job', status: 500 });
    const gaps: number[] = [];
    for (let i = 0; i < 5; i++) {
      h.tick();
      const r = await w.pollOnce(WS, SITE);
      expect(r.error).toBe('transport');
      const st = (await w.status()).sites.find((s) => s.siteId === SITE);
      gaps.push((st?.nextPollAt ?? 0) - h.clock.now());
    }
    expect(gaps).toEqual([120_000, 240_000, 480_000, 480_000, 480_000]);
    expect(h.events.filter((e) => e.type === 'poll-failed')).toHaveLength(5);
  });

  it('two watcher instances on one store: one polls (lease), each notification once; takeover after ttl', async () => {
    h = await startHarness();
    const a = h.watcher({ holderId: 'replica-a', leaseTtlMs: 180_000 });
    const b = h.watcher({ holderId: 'replica-b', leaseTtlMs: 180_000 });
    await sub(a, 'C1');
    await a.pollOnce(WS, SITE);
    expect((await b.pollOnce(WS, SITE)).skipped).toBe('lease');
    const jobs = [newJob('lease-1'), newJob('lease-2')];
    h.tick();
    await Promise.all([a.pollOnce(WS, SITE), b.pollOnce(WS, SITE)]);
    expect(h.poster.topLevel('C1')).toHaveLength(2);
    // replica a dies (stops polling without releasing); b takes over after the ttl. The store's
    // lease clock is real time, so shorten a's lease to 30 ms and wait it out.
    expect(await h.store.leases.acquire(`poll:${WS}:${SITE}`, 'replica-a', 30)).toBe(true);
    await new Promise((r) => setTimeout(r, 60));
    h.tick();
    for (const j of jobs) h.emu.finishJob(SITE, j);
    const rb = await b.pollOnce(WS, SITE);
    expect(rb.skipped).toBeUndefined();
    expect(h.poster.messages.filter((m) => m.key.includes('|final:'))).toHaveLength(2);
    expect(h.poster.duplicateKeys()).toEqual([]);
    expect(await h.store.leases.holder(`poll:${WS}:${SITE}`)).toBe('replica-b');
  });

  it('start() polls on the interval with the fake clock; stop() is graceful and releases leases', async () => {
    h = await startHarness();
    const w = h.watcher({ jitter: 0 });
    await sub(w, 'C1');
    w.start();
    await waitFor(async () => ((await w.status()).sites[0]?.lastPollAt ?? 0) > 0);
    const job = newJob('scheduled');
    h.tick(60_000);
    await waitFor(async () => h.poster.cardOf('C1', job) !== undefined);
    const st = await w.status();
    expect(st.running).toBe(true);
    expect(st.sites[0]?.leaseHeld).toBe(true);
    await w.stop();
    expect(await h.store.leases.holder(`poll:${WS}:${SITE}`)).toBeUndefined();
  });
});

describe('scheduler', () => {
  it('while the store cannot list the subscriptions, it retries every few seconds, not at the timer floor', async () => {
    h = await startHarness();
    const w = h.watcher({ jitter: 0 });
    await sub(w, 'C1');
    w.start();
    await waitFor(async () => ((await w.status()).sites[0]?.lastPollAt ?? 0) > 0);
    // The store goes down; the site is due again one interval later.
    let listings = 0;
    w.subscriptions.workspaces = async () => {
      listings++;
      throw new Error('store unavailable');
    };
    h.tick(60_000);
    await new Promise((r) => setTimeout(r, 20));
    // 20 s of (fake) time in 200 ms steps: a retry every 5 s (about 5 listings), not one per step.
    for (let i = 0; i < 100; i++) {
      h.tick(200);
      await new Promise((r) => setImmediate(r));
    }
    expect(listings).toBeGreaterThanOrEqual(4);
    expect(listings).toBeLessThanOrEqual(7);
    await w.stop();
  });

  it("a site whose delivery is stuck does not hold up another site's polls; stop() waits for it", async () => {
    h = await startHarness();
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((r) => {
      release = r;
    });
    // Posting to C1 (site AB12) hangs until released; C2 (site CD34) is a normal channel.
    const slow = {
      post: async (channel: string, m: never, o: never) => {
        if (channel === 'C1') await stuck;
        return h.poster.post(channel, m, o);
      },
      update: (channel: string, ts: string, m: never) => h.poster.update(channel, ts, m),
    };
    const w = h.watcher({ jitter: 0, poster: () => slow as never });
    await sub(w, 'C1', {}, SITE);
    await sub(w, 'C2', {}, SITE2);
    w.start();
    await waitFor(async () => (await w.status()).sites.filter((x) => (x.lastPollAt ?? 0) > 0).length === 2);
    h.emu.createJob(SITE, 'stuck-site', [{ recipient: 'a' }]);
    h.tick(60_000); // AB12 polls, finds its job, and its delivery hangs
    await waitFor(async () =>
      (await w.status()).sites.some((x) => x.siteId === SITE && x.lastResult?.intents === 1),
    );
    // CD34 keeps its schedule: two more intervals, two more polls, its job delivered.
    const other = h.emu.createJob(SITE2, 'other-site', [{ recipient: 'b' }]);
    const polledAt = (await w.status()).sites.find((x) => x.siteId === SITE2)?.lastPollAt ?? 0;
    h.tick(60_000);
    await waitFor(async () => h.poster.cardOf('C2', other) !== undefined);
    expect((await w.status()).sites.find((x) => x.siteId === SITE2)?.lastPollAt).toBeGreaterThan(polledAt);
    expect(h.poster.messages.filter((m) => m.channel === 'C1')).toEqual([]);
    // stop() waits for the stuck delivery: it ends once the post goes through.
    let stopped = false;
    const stopping = w.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(h.poster.messages.filter((m) => m.channel === 'C1')).toHaveLength(1);
  });
});

async function waitFor(cond: () => Promise<boolean>, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not reached');
}
