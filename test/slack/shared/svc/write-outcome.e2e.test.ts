/**
 * A change sent to the service whose answer is lost (a timeout after sending, a 5xx, an unreadable
 * answer) may have been made: the user is told the outcome is unknown and how to check, not that
 * nothing changed (trying again blindly would add a second member or a second site request).
 * Through the signed app, the emulator with faults and the fake Slack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../../src/store/errors.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { button, drm, selectValue, textValue } from '../../../support/slack.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({
    credentials: 'env',
    apiOptions: { timeouts: { headersMs: 1000, bodyMs: 1000 }, retries: { max: 1, baseMs: 10 } },
  });
});
afterAll(async () => {
  await bot?.close();
});

const UNKNOWN = /cannot tell whether the change was made/;
const NOTHING_CHANGED = /Nothing was changed/;

describe('a change whose answer is lost', () => {
  it('members add timed out after sending: outcome unknown, check with /drm members (it was in fact added)', async () => {
    const emu = bot.emulator!;
    emu.faults.clear();
    emu.faults.add({ match: 'POST /svc/api/v2/account/member', latencyMs: 1600, times: 1 });
    try {
      const r = await drm(bot, 'members add late.arrival@example.com ts', bot.ws.admin);
      expect(r.text).toMatch(UNKNOWN);
      expect(r.text).toContain('`/drm members`');
      expect(r.text).toContain('so it is not done twice');
      expect(r.text).not.toMatch(NOTHING_CHANGED);
    } finally {
      emu.faults.clear();
    }
    // The service did add the member after the bot stopped waiting: "nothing changed" was false.
    let listed = '';
    for (let i = 0; i < 50 && !listed.includes('late.arrival@example.com'); i++) {
      listed = (await drm(bot, 'members', bot.ws.admin)).text;
      if (!listed.includes('late.arrival@example.com')) await new Promise((res) => setTimeout(res, 100));
    }
    expect(listed).toContain('late.arrival@example.com');
  });

  it('site request answered 503: outcome unknown, check with /drm site requests', async () => {
    const emu = bot.emulator!;
    emu.faults.clear();
    emu.faults.add({ match: 'POST /svc/api/v2/account/siteId/approve', status: 503, times: 1 });
    try {
      const r = await drm(bot, 'site request Movies EU', bot.ws.admin);
      expect(r.text).toMatch(/HTTP 503, so the bot cannot tell whether the change was made/);
      expect(r.text).toContain('`/drm site requests`');
      expect(r.text).not.toMatch(NOTHING_CHANGED);
    } finally {
      emu.faults.clear();
    }
  });

  it('site request answered with an unreadable body: outcome unknown, with a reference id', async () => {
    const emu = bot.emulator!;
    emu.faults.clear();
    emu.faults.add({ match: 'POST /svc/api/v2/account/siteId/approve', malformed: true, times: 1 });
    try {
      const r = await drm(bot, 'site request Movies EU', bot.ws.admin);
      expect(r.text).toMatch(/unexpected format, so the bot cannot tell whether the change was made/);
      expect(r.text).toContain('`/drm site requests`');
      expect(r.text).toMatch(/Reference `[0-9a-f]+`/);
    } finally {
      emu.faults.clear();
    }
  });

  it('controls: a 429 on the change (not processed) says nothing was changed; a failed read says only that the service cannot be reached', async () => {
    const emu = bot.emulator!;
    emu.faults.clear();
    emu.faults.add({ match: 'POST /svc/api/v2/account/member', status: 429, times: 1 });
    try {
      const r = await drm(bot, 'members add rate.limited@example.com ts', bot.ws.admin);
      expect(r.text).toMatch(/rate limited/);
      expect(r.text).toMatch(NOTHING_CHANGED);
      expect(r.text).not.toMatch(UNKNOWN);
    } finally {
      emu.faults.clear();
    }
    emu.faults.add({ match: 'GET /svc/api/v2/account/member', status: 503 });
    try {
      const r = await drm(bot, 'members', bot.ws.admin);
      expect(r.text).toMatch(/HTTP 503/);
      expect(r.text).toContain("Can't reach the DRM service right now, so `/drm members` couldn't run.");
      // A read changes nothing: it does not say so, nor how many times it tried.
      expect(r.text).not.toMatch(NOTHING_CHANGED);
      expect(r.text).not.toMatch(/Tried \d/);
      expect(r.text).not.toMatch(UNKNOWN);
    } finally {
      emu.faults.clear();
    }
  });

  it('a 429 whose Retry-After asks for 10 minutes says so, not "try again in a minute"', async () => {
    const emu = bot.emulator!;
    emu.faults.clear();
    emu.faults.add({
      match: 'GET /svc/api/v2/account/member',
      status: 429,
      retryAfterSeconds: 600,
      times: 1,
    });
    try {
      const r = await drm(bot, 'members', bot.ws.admin);
      expect(r.text).toMatch(/The DRM service is busy right now/);
      expect(r.text).toContain('The service asked to wait 10 minutes: try again after that.');
      expect(r.text).not.toContain('Try again in a minute');
    } finally {
      emu.faults.clear();
    }
  });

  it('a change made at the service whose audit write fails (store down) is reported as made, not "not run"', async () => {
    const log = bot.deps.store.audit;
    const append = log.append.bind(log);
    log.append = async () => {
      throw new StoreUnavailableError('set', 1000);
    };
    let r: Awaited<ReturnType<typeof drm>>;
    try {
      r = await drm(bot, 'members add audit.down@example.com ts', bot.ws.admin);
    } finally {
      log.append = append;
    }
    expect(r.text).toContain('audit.down@example.com');
    expect(r.text).not.toMatch(/storage is unavailable|was not run|failed/);
    expect(bot.logs.text()).toContain('audit append failed');
    const listed = (await drm(bot, 'members', bot.ws.admin)).text;
    expect(listed).toContain('audit.down@example.com');
  });

  it('a site request the service registered, whose tracking write fails (store down), is reported as sent', async () => {
    const store = bot.deps.store;
    const docs = store.docs.bind(store);
    // The tracked-requests documents refuse writes, as a store that just went down.
    store.docs = ((ns: string, schema?: never) => {
      const repo = docs(ns, schema);
      if (ns !== 'notify-requests') return repo;
      return new Proxy(repo, {
        get(t, p) {
          if (p === 'update' || p === 'put')
            return async () => {
              throw new StoreUnavailableError('update', 1000);
            };
          const v = Reflect.get(t, p);
          return typeof v === 'function' ? v.bind(t) : v;
        },
      });
    }) as typeof store.docs;
    const seq = bot.fake.lastSeq();
    try {
      const r = await bot.command('site request Untracked Films', { command: '/drm', user: bot.ws.admin });
      expect(r.status).toBe(200);
      const answer = await bot.fake.waitFor(
        (c) => c.seq > seq && (c.method === 'response_url' || c.method === 'chat.postMessage'),
        8000,
      );
      const text = JSON.stringify(answer.args);
      expect(text).toContain('Untracked Films');
      expect(text).not.toMatch(/storage is unavailable|was not run/);
    } finally {
      store.docs = docs;
    }
    const listed = (await drm(bot, 'site requests', bot.ws.admin)).text;
    expect(listed).toContain('Untracked Films');
  });

  it('a plan request form whose request fails keeps the typed message in the reply (the form closed)', async () => {
    const member = bot.ws.member;
    const card = await drm(bot, 'plan', member);
    const trial = button(card.blocks, (b) => b.action_id === 'svc_plan_request_trial');
    const seq = bot.fake.lastSeq();
    await bot.action({ actionId: trial.action_id, value: trial.value!, user: member });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 5000);
    const emu = bot.emulator!;
    emu.faults.clear();
    emu.faults.add({ match: 'POST /svc/api/v2/plan/request/status', status: 503, times: 1 });
    const seq2 = bot.fake.lastSeq();
    try {
      const sub = await bot.viewSubmission({
        user: member,
        values: {
          svc_plan_service: selectValue('PD001'),
          svc_plan_message: textValue('Two more weeks, please:\nthe launch moved <soon>'),
        },
      });
      expect(sub.status).toBe(200);
      const reply = await bot.fake.waitFor(
        (c) => c.seq > seq2 && (c.method === 'response_url' || c.method === 'chat.postMessage'),
        8000,
      );
      const text = JSON.stringify(reply.args);
      expect(text).toMatch(UNKNOWN);
      expect(text).toContain('Your message, to send again:');
      expect(text).toContain('>Two more weeks, please:\\n>the launch moved &lt;soon&gt;');
    } finally {
      emu.faults.clear();
    }
  });

  it('a plan request made, the plan state then unreadable: the card says it was sent, not an error', async () => {
    const emu = bot.emulator!;
    // The FWM product of DEMO: the earlier test left a pending DRM request.
    const before = await drm(bot, 'plan fwm', bot.ws.admin);
    expect(before.text).not.toContain('is already pending');
    emu.faults.clear();
    // The site list (read after the request, for the card's buttons) fails; the request itself works.
    emu.faults.add({ match: 'GET /svc/api/v2/account/siteId', status: 503 });
    const seq = bot.fake.lastSeq();
    try {
      const r = await bot.command('plan trial fwm Two more weeks', { command: '/drm', user: bot.ws.admin });
      expect(r.status).toBe(200);
      const answer = await bot.fake.waitFor(
        (c) => c.seq > seq && (c.method === 'response_url' || c.method === 'chat.postMessage'),
        8000,
      );
      const text = JSON.stringify(answer.args);
      expect(text).toContain('sent a trial extension request');
      expect(text).not.toMatch(/failed|HTTP 503/);
    } finally {
      emu.faults.clear();
    }
    expect((await drm(bot, 'plan fwm', bot.ws.admin)).text).toMatch(/Pending/);
  });

  it('a password reset done, the member list then unreadable: the reply says it was asked, not an error', async () => {
    const emu = bot.emulator!;
    const list = await drm(bot, 'members', bot.ws.admin);
    const reset = button(list.blocks, (b) => /reset/i.test(b.action_id));
    emu.faults.clear();
    emu.faults.add({ match: 'GET /svc/api/v2/account/member', status: 503 });
    const seq = bot.fake.lastSeq();
    try {
      await bot.action({ actionId: reset.action_id, value: reset.value!, user: bot.ws.admin });
      const answer = await bot.fake.waitFor((c) => c.seq > seq && c.method === 'response_url', 8000);
      const text = JSON.stringify(answer.args);
      expect(text).toContain('asked the service to reset the password');
      expect(text).not.toMatch(/Couldn't|HTTP 503/);
    } finally {
      emu.faults.clear();
    }
  });
});
