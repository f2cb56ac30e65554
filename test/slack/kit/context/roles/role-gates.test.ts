/**
 * The role checks that must not delay Slack and the bounded role caches (#21).
 * Order is asserted on a shared log (never time): the fakes answer at once, or never until the
 * test lets them (a deferred users.info stands for a slow or rate-limited Slack).
 */
import { describe, expect, it } from 'vitest';
import { TtlLru } from '../../../../../src/lru.js';
import { CommandRegistry } from '../../../../../src/slack/kit/commands/registry.js';
import { createContext } from '../../../../../src/slack/kit/context/context.js';
import {
  adminGateForView,
  admitToModal,
  setRoleCheckBudgetMs,
} from '../../../../../src/slack/kit/context/roles/admission.js';
import {
  roleCacheSizes,
  USER_CACHE_MAX,
  userInfo,
} from '../../../../../src/slack/kit/context/roles/slack-users.js';
import { localRole } from '../../../../../src/slack/kit/context/roles/standing.js';
import {
  captureApp,
  deferredUsersInfo,
  fakeClient,
  memoryDeps,
  submission,
} from '../../../../support/slack-app.js';

describe('TtlLru', () => {
  it('drops expired entries on read, refreshes recency on a hit, evicts the oldest over the cap', () => {
    const c = new TtlLru<number>(2, 100);
    c.set('a', 1, 0);
    c.set('b', 2, 0);
    expect(c.get('a', 50)).toBe(1); // a is now the newest
    c.set('c', 3, 60); // over the cap: b (oldest) goes
    expect(c.get('b', 60)).toBeUndefined();
    expect(c.get('a', 60)).toBe(1);
    expect(c.size).toBe(2);
    expect(c.get('a', 100)).toBeUndefined(); // expired (set at 0, ttl 100): deleted
    expect(c.size).toBe(1);
  });

  it('the users.info cache never holds more than its cap, and refetches after the TTL', async () => {
    const deps = await memoryDeps();
    const log: string[] = [];
    const client = fakeClient(log) as never;
    for (let i = 0; i <= USER_CACHE_MAX; i++) await userInfo(deps, client, 'T1', `U${i}`);
    expect(roleCacheSizes(deps).users).toBe(USER_CACHE_MAX);
    log.length = 0;
    await userInfo(deps, client, 'T1', `U${USER_CACHE_MAX}`);
    expect(log).toEqual([]); // still cached
    await userInfo(deps, client, 'T1', 'U0'); // the oldest was evicted
    expect(log).toEqual(['users.info']);
    const later = { ...deps, now: () => deps.now() + 11 * 60_000 };
    log.length = 0;
    await userInfo(later, client, 'T1', 'U0');
    expect(log).toEqual(['users.info']);
  });
});

describe('localRole', () => {
  it('knows config admins and cached users, and says "unknown" rather than asking Slack', async () => {
    const deps = await memoryDeps({ adminUserIds: ['UADMIN'] });
    expect(await localRole(deps, 'T1', 'UADMIN')).toBe('admin');
    expect(await localRole(deps, 'T1', 'UNEW')).toBeUndefined();
    const log: string[] = [];
    await userInfo(
      deps,
      fakeClient(log, { 'users.info': () => ({ ok: true, user: {} }) }) as never,
      'T1',
      'UNEW',
    );
    expect(await localRole(deps, 'T1', 'UNEW')).toBe('member');
    // With an admin user group set and its members not cached, a plain member is not known.
    await deps.store.settings.put('T1', {
      ...(await deps.store.settings.get('T1')),
      adminUsergroupId: 'S0ADMINS',
    });
    expect(await localRole(deps, 'T1', 'UNEW')).toBeUndefined();
  });
});

describe('admin-only modal submissions', () => {
  const settingsValues = {
    svc_set_license_url: { value: { type: 'plain_text_input', value: 'https://new.example/license' } },
    svc_set_package_url: { value: { type: 'plain_text_input', value: '' } },
    svc_set_token_duration: { value: { type: 'plain_text_input', value: '7200' } },
  };

  async function submitSettings(user: string, override: Record<string, (a: unknown) => unknown> = {}) {
    const calls: unknown[] = [];
    const deps = await memoryDeps({
      svc: {
        updateSettings: async (_site, u) => {
          calls.push(u);
        },
      },
    });
    const { settingsModal } = await import('../../../../../src/slack/features/settings/modal.js');
    const { registerInteractions } = await import('../../../../../src/slack/kit/interactions/listeners.js');
    const { registry } = await import('../../../../../src/slack/features/index.js');
    const cap = captureApp();
    registerInteractions(cap.app, deps, [settingsModal], registry);
    const log: string[] = [];
    const acks: unknown[] = [];
    const { body, view, context } = submission('svc_settings_edit', {
      user,
      privateMetadata: JSON.stringify({ w: 'T1', s: 'DEMO' }),
      values: settingsValues,
    });
    const client = fakeClient(log, override);
    return {
      deps,
      log,
      acks,
      calls,
      client,
      run: () =>
        cap.views.get('svc_settings_edit')!({
          ack: async (r: unknown) => {
            log.push('ack');
            acks.push(r);
          },
          body,
          view,
          context,
          client,
        }),
    };
  }

  it('role unknown locally: acks with "Saving…" first, then asks Slack; a member sees a refusal view, audited, no service call', async () => {
    const t = await submitSettings('UMEMBER', {
      'users.info': () => ({ ok: true, user: { tz: 'UTC', is_admin: false } }),
    });
    await t.run();
    expect(t.log.indexOf('ack')).toBeLessThan(t.log.indexOf('users.info'));
    expect(JSON.stringify(t.acks[0])).toContain('"response_action":"update"');
    expect(JSON.stringify(t.acks[0])).toContain('Saving');
    expect(t.log).toContain('views.update');
    expect(t.calls).toEqual([]);
    const audit = await t.deps.store.audit.list('T1');
    expect(audit[0]).toMatchObject({ action: 'settings.update', result: 'refused' });
  });

  it('role unknown locally, an admin: acked once, then saved and shown with views.update', async () => {
    const t = await submitSettings('UADMIN2');
    await t.run();
    expect(t.log.filter((x) => x === 'ack')).toHaveLength(1);
    expect(t.log.indexOf('ack')).toBeLessThan(t.log.indexOf('users.info'));
    expect(t.calls).toHaveLength(1);
    expect(t.log.at(-1)).toBe('views.update');
  });

  it('a member known from the cache is refused inline, with no Slack call at all before the ack', async () => {
    const t = await submitSettings('UMEMBER', {
      'users.info': () => ({ ok: true, user: { tz: 'UTC', is_admin: false } }),
    });
    await userInfo(t.deps, t.client as never, 'T1', 'UMEMBER');
    t.log.length = 0;
    await t.run();
    expect(t.log[0]).toBe('ack');
    expect(t.acks[0]).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(t.acks[0])).toContain('Only admins can change the DRM settings');
    expect(t.calls).toEqual([]);
  });

  it('adminGateForView: a member refused after "pending" gets a refusal view on the same view id', async () => {
    const deps = await memoryDeps();
    const log: string[] = [];
    const updates: unknown[] = [];
    const client = fakeClient(log, {
      'users.info': () => ({ ok: true, user: { is_admin: false } }),
      'views.update': (a) => {
        updates.push(a);
        return { ok: true };
      },
    });
    const ctx = createContext({ deps, client: client as never, teamId: 'T1', userId: 'UX' });
    const pending = {
      type: 'modal',
      callback_id: 'x',
      title: { type: 'plain_text', text: 'x' },
      blocks: [],
    } as never;
    const gate = await adminGateForView(ctx, async () => void log.push('ack'), {
      viewId: 'V9',
      blockId: 'b',
      what: 'do it',
      action: 'x.do',
      pending,
    });
    expect(gate).toEqual({ ok: false });
    expect(log[0]).toBe('ack');
    expect(updates[0]).toMatchObject({ view_id: 'V9' });
    expect(JSON.stringify(updates[0])).toContain('Only admins can do it');
  });
});

describe('modals opened by commands and buttons', () => {
  function ctxWith(deps: Awaited<ReturnType<typeof memoryDeps>>, client: unknown) {
    const replies: string[] = [];
    const ctx = createContext({
      deps,
      client: client as never,
      teamId: 'T1',
      userId: 'USLOW',
      triggerId: 'trig',
      channelId: 'C1',
    });
    ctx.respond = async (m) => {
      replies.push(m.text);
    };
    return { ctx, replies };
  }

  it('a slow users.info: the "Checking…" modal opens with the trigger id first, then becomes the caller\'s modal', async () => {
    const deps = await memoryDeps();
    setRoleCheckBudgetMs(deps, 0);
    const log: string[] = [];
    const slow = deferredUsersInfo(log, { tz: 'UTC', is_admin: true });
    const { ctx } = ctxWith(deps, fakeClient(log, slow.override));
    const admitted = admitToModal(ctx, { what: 'run /dwm setup', action: 'command.setup' });
    await expect.poll(() => log.includes('views.open')).toBe(true);
    expect(log).not.toContain('users.info answered');
    slow.release();
    expect(await admitted).toBe(true);
    const form = { type: 'modal', callback_id: 'f', title: { type: 'plain_text', text: 'Form' }, blocks: [] };
    expect(await ctx.openView(form as never)).toBe('V1');
    // users.info was asked first, but the modal opened before it answered.
    expect(log).toEqual(['users.info', 'views.open', 'users.info answered', 'views.update']);
  });

  it('a slow users.info for a member: the modal turns into a refusal, audited', async () => {
    const deps = await memoryDeps();
    setRoleCheckBudgetMs(deps, 0);
    const log: string[] = [];
    const slow = deferredUsersInfo(log, { tz: 'UTC', is_admin: false });
    const { ctx } = ctxWith(deps, fakeClient(log, slow.override));
    const admitted = admitToModal(ctx, { what: 'run /dwm setup', action: 'command.setup' });
    await expect.poll(() => log.includes('views.open')).toBe(true);
    slow.release();
    expect(await admitted).toBe(false);
    // users.info was asked first, but the modal opened before it answered.
    expect(log).toEqual(['users.info', 'views.open', 'users.info answered', 'views.update']);
    expect((await deps.store.audit.list('T1'))[0]).toMatchObject({
      action: 'command.setup',
      result: 'refused',
    });
  });

  it('a role known in time: members get the usual refusal and no modal', async () => {
    const deps = await memoryDeps();
    const log: string[] = [];
    const { ctx, replies } = ctxWith(
      deps,
      fakeClient(log, { 'users.info': () => ({ ok: true, user: { is_admin: false } }) }),
    );
    expect(await admitToModal(ctx, { what: 'run /dwm setup', action: 'command.setup' })).toBe(false);
    expect(log.filter((x) => x.startsWith('views.'))).toEqual([]);
    expect(replies.join()).toContain('Only admins can run /dwm setup');
  });

  it('the registry uses it for entries that open a modal', async () => {
    const reg = new CommandRegistry();
    const opened: string[] = [];
    reg.add({
      command: '/dwm',
      path: ['form'],
      args: {},
      role: 'admin',
      opensModal: true,
      summary: 'Open a form',
      async handler(ctx) {
        await ctx.openView({
          type: 'modal',
          callback_id: 'f',
          title: { type: 'plain_text', text: 'F' },
          blocks: [],
        });
        opened.push('handler');
      },
    });
    const deps = await memoryDeps();
    setRoleCheckBudgetMs(deps, 0);
    const log: string[] = [];
    const slow = deferredUsersInfo(log, { tz: 'UTC', is_admin: true });
    const { ctx } = ctxWith(deps, fakeClient(log, slow.override));
    const done = reg.dispatch(ctx, 'form');
    await expect.poll(() => log.includes('views.open')).toBe(true);
    slow.release();
    await done;
    expect(opened).toEqual(['handler']);
    // users.info was asked first, but the modal opened before it answered.
    expect(log).toEqual(['users.info', 'views.open', 'users.info answered', 'views.update']);
  });
});
