/**
 * The interaction kit (src/slack/kit/interactions/) and the feature list: the help order, the
 * checks every declaration gets (workspace tag, default-deny admin role, one run per click target
 * for destructive buttons), and the watch form's channel re-check at submission.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ServiceClient } from '../../../../src/api/types.js';
import { FEATURES, registry } from '../../../../src/slack/features/index.js';
import { cancelButton } from '../../../../src/slack/features/plan/buttons.js';
import { watchFormModal } from '../../../../src/slack/features/watch/modal.js';
import { section, textInput } from '../../../../src/slack/kit/blocks/blocks.js';
import { interactionsOf } from '../../../../src/slack/kit/features.js';
import { homeActionsOf } from '../../../../src/slack/kit/interactions/home-actions.js';
import { registerInteractions } from '../../../../src/slack/kit/interactions/listeners.js';
import { button, modal } from '../../../../src/slack/kit/interactions/registry.js';
import { SVC_ACTIONS } from '../../../../src/slack/shared/svc/values.js';
import { Subscriptions } from '../../../../src/watch/subscriptions.js';
import { captureApp, fakeClient, memoryDeps, submission } from '../../../support/slack-app.js';

describe('help order', () => {
  it('everyday commands first, admin-only ones last, in the order of features/index.ts', () => {
    const order = (c: '/dwm' | '/drm') =>
      registry.entries(c).map((e) => `${e.path.join(' ')}${e.role === 'admin' ? ' (admin)' : ''}`);
    expect(order('/dwm')).toEqual([
      'jobs',
      'job',
      'recipients',
      'recipient',
      'register',
      'watch',
      'unwatch',
      'watches',
      'digest',
      'digest daily',
      'digest now',
      'digest off',
      'setup status',
      'setup (admin)',
      'setup admins (admin)',
      'setup admins add (admin)',
      'setup admins remove (admin)',
      'setup admins group (admin)',
      'setup audit-channel (admin)',
      'setup erase-user (admin)',
      'setup shared-channels (admin)',
      'setup shared-channel allow (admin)',
      'setup shared-channel revoke (admin)',
      'debug (admin)',
    ]);
    expect(order('/drm')).toEqual([
      'sites',
      'site requests',
      'plan',
      'plan trial',
      'plan resume',
      'stats',
      'alerts',
      'alerts watch',
      'alerts stop',
      'setup status',
      'site request (admin)',
      'plan suspend (admin)',
      'plan cancel (admin)',
      'licenses (admin)',
      'users (admin)',
      'devices (admin)',
      'cids (admin)',
      'packaging (admin)',
      'members (admin)',
      'members add (admin)',
      'settings (admin)',
      'fpscert (admin)',
      'setup (admin)',
      'setup admins (admin)',
      'setup admins add (admin)',
      'setup admins remove (admin)',
      'setup admins group (admin)',
      'setup audit-channel (admin)',
      'setup erase-user (admin)',
      'setup shared-channels (admin)',
      'setup shared-channel allow (admin)',
      'setup shared-channel revoke (admin)',
      'audit (admin)',
    ]);
  });

  it('the registry of the feature list is sealed: nothing registers itself later', () => {
    expect(() =>
      registry.add({
        command: '/dwm',
        path: ['late'],
        args: {},
        role: 'member',
        summary: 'Register by side effect',
        handler: async () => undefined,
      }),
    ).toThrow(/sealed/);
    expect(registry.find('/dwm', ['late'])).toBeUndefined();
  });

  it('every button and modal has one declaration, and every admin modal has a gate', async () => {
    const cap = captureApp();
    expect(() =>
      registerInteractions(cap.app, {} as never, interactionsOf(FEATURES), registry),
    ).not.toThrow();
    // Every declaration is reached through the registered listeners; an id nobody declared is not.
    for (const i of interactionsOf(FEATURES)) {
      const id = i.kind === 'modal' ? i.callbackId : typeof i.actionId === 'string' ? i.actionId : undefined;
      if (id !== undefined) expect(await cap.reaches(i.kind === 'modal' ? 'view' : 'action', id)).toBe(true);
    }
    expect(await cap.reaches('action', 'nobody_declared_this')).toBe(false);
    expect(await cap.reaches('view', 'nobody_declared_this')).toBe(false);
  });
});

/** A click on a button of workspace T1, from the message `ts`. */
function click(actionId: string, value: string, o: { user?: string; team?: string; ts?: string } = {}) {
  return {
    type: 'block_actions',
    team: { id: o.team ?? 'T1' },
    user: { id: o.user ?? 'U1' },
    channel: { id: 'C1' },
    container: { type: 'message', message_ts: o.ts ?? '1700000000.000100', channel_id: 'C1' },
    response_url: 'https://hooks.slack.com/actions/x',
    actions: [{ action_id: actionId, value }],
  };
}

describe('declared buttons', () => {
  it('refuse a value from another workspace, and an unreadable one, without running', async () => {
    const deps = await memoryDeps();
    const ran: string[] = [];
    const cap = captureApp();
    registerInteractions(
      cap.app,
      deps,
      [
        button({
          name: 'test.tagged',
          actionId: 'test_tagged',
          value: (raw) => (raw ? (JSON.parse(raw) as { w: string }) : undefined),
          failure: 'no',
          run: async (_ctx, v) => {
            ran.push(v.w);
          },
        }),
      ],
      registry,
    );
    const replies: string[] = [];
    const send = (value: string) =>
      cap.action('test_tagged')({
        ack: async () => undefined,
        body: click('test_tagged', value),
        context: { teamId: 'T1' },
        client: fakeClient([]),
        respond: async (m: unknown) => {
          replies.push(JSON.stringify(m));
        },
      });
    await send(JSON.stringify({ w: 'T2' }));
    await send('');
    await send(JSON.stringify({ w: 'T1' }));
    expect(ran).toEqual(['T1']);
    expect(replies[0]).toContain('belongs to another workspace');
    expect(replies[1]).toContain('out of date');
    await deps.store.close();
  });

  it('a button marked admin refuses a member at click time (audited) and never runs', async () => {
    const deps = await memoryDeps();
    const ran: string[] = [];
    const cap = captureApp();
    registerInteractions(
      cap.app,
      deps,
      [
        button({
          name: 'test.admin',
          actionId: 'test_admin',
          value: (raw) => (raw ? (JSON.parse(raw) as { w: string }) : undefined),
          role: 'admin',
          refusal: () => ({ what: 'do the admin thing', action: 'test.admin' }),
          failure: 'no',
          run: async () => {
            ran.push('ran');
          },
        }),
      ],
      registry,
    );
    const replies: string[] = [];
    await cap.action('test_admin')({
      ack: async () => undefined,
      body: click('test_admin', JSON.stringify({ w: 'T1' }), { user: 'U0MEMBER' }),
      context: { teamId: 'T1' },
      client: fakeClient([], { 'users.info': () => ({ ok: true, user: { tz: 'UTC', is_admin: false } }) }),
      respond: async (m: unknown) => {
        replies.push(JSON.stringify(m));
      },
    });
    expect(ran).toEqual([]);
    expect(replies.join('\n')).toContain('Only admins can do the admin thing');
    const audit = await deps.store.audit.list('T1', { limit: 10 });
    expect(audit.map((a) => `${a.action} ${a.result}`)).toContain('test.admin refused');
    await deps.store.close();
  });
});

describe('a button standing for a command (Home entry point, `opens`)', () => {
  /** A button with no role of its own, standing for the admin command `/dwm debug` (test mapping). */
  async function clickAs(user: string, isAdmin: boolean, declared = true) {
    const deps = await memoryDeps();
    const ran: Array<string | undefined> = [];
    const cap = captureApp();
    const homeActions = homeActionsOf([
      { name: 'probe', homeActions: declared ? [{ entry: 'setup', command: '/dwm', path: ['debug'] }] : [] },
    ]);
    registerInteractions(
      cap.app,
      deps,
      [
        button({
          name: 'test.opens',
          actionId: 'test_opens',
          value: (raw) => (raw ? (JSON.parse(raw) as object) : undefined),
          untagged: 'test button',
          tag: () => undefined,
          opens: 'setup',
          refusal: (_v, t) => ({ what: `run ${t?.entry.path.join(' ')}`, action: 'test.opens' }),
          failure: 'no',
          run: async (ctx, _v, { target }) => {
            ran.push(target ? `${ctx.command} ${target.entry.path.join(' ')}` : undefined);
          },
        }),
      ],
      registry,
      homeActions,
    );
    const replies: string[] = [];
    await cap.action('test_opens')({
      ack: async () => undefined,
      body: click('test_opens', '{}', { user }),
      context: { teamId: 'T1' },
      client: fakeClient([], { 'users.info': () => ({ ok: true, user: { tz: 'UTC', is_admin: isAdmin } }) }),
      respond: async (m: unknown) => {
        replies.push(JSON.stringify(m));
      },
    });
    const audit = await deps.store.audit.list('T1', { limit: 10 });
    await deps.store.close();
    return { ran, replies, audit: audit.map((a) => `${a.action} ${a.result}`) };
  }

  it("refuses a member with the target command's role (the declaration has none), audited, never runs", async () => {
    const r = await clickAs('U0MEMBER', false);
    expect(r.ran).toEqual([]);
    expect(r.replies.join('\n')).toContain('Only admins can run debug');
    expect(r.audit).toContain('test.opens refused');
  });

  it('runs for an admin, in the command context, with the registry entry as target', async () => {
    const r = await clickAs('U0ADMIN', true);
    expect(r.ran).toEqual(['/dwm debug']);
  });

  it('no feature declares the entry point: runs without a target (the button says so)', async () => {
    const r = await clickAs('U0MEMBER', false, false);
    expect(r.ran).toEqual([undefined]);
  });

  it('two features claiming one entry point is refused', () => {
    const a = { entry: 'watch', command: '/dwm', path: ['watch'] } as const;
    expect(() =>
      homeActionsOf([
        { name: 'one', homeActions: [a] },
        { name: 'two', homeActions: [a] },
      ]),
    ).toThrow(/Home entry point watch declared by one and two/);
  });
});

describe('plan card Cancel (destructive button)', () => {
  it('a double click sends one cancel upstream; the second click is told it is already done', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let latestCalls = 0;
    // A real-shaped user id: the cancel is tracked (request-outcomes), which checks it.
    const deps = await memoryDeps({
      adminUserIds: ['U0CANCEL1'],
      svc: {
        getLatestStatusRequest: async () => {
          latestCalls++;
          await gate;
          throw new Error('stop here');
        },
      } as Partial<ServiceClient>,
    });
    const cap = captureApp();
    registerInteractions(cap.app, deps, [cancelButton], registry);
    const value = JSON.stringify({ w: 'T1', s: 'DEMO', v: 'PD001', a: 'cancel', r: 'REQ1' });
    const replies: string[] = [];
    const send = () =>
      cap.action(SVC_ACTIONS.planCancel)({
        ack: async () => undefined,
        body: click(SVC_ACTIONS.planCancel, value, { user: 'U0CANCEL1' }),
        context: { teamId: 'T1' },
        client: fakeClient([]),
        respond: async (m: unknown) => {
          replies.push(JSON.stringify(m));
        },
      });
    const first = send();
    // The first click reached the service (and waits there); then the second click comes.
    await expect.poll(() => latestCalls).toBe(1);
    await send();
    expect(latestCalls).toBe(1);
    expect(replies.join('\n')).toContain('already cancelled');
    release();
    await first;
    await deps.store.close();
  });
});

describe('watch form submission', () => {
  const values = {
    watch_site: { value: { type: 'static_select', selected_option: { value: 'DEMO' } } },
    watch_mode: { value: { type: 'radio_buttons', selected_option: { value: 'all' } } },
  };

  async function submit(meta: object, o: { user?: string; members?: string[] } = {}) {
    const deps = await memoryDeps();
    const cap = captureApp();
    registerInteractions(cap.app, deps, [watchFormModal], registry);
    const log: string[] = [];
    const acks: unknown[] = [];
    const updates: unknown[] = [];
    const client = {
      ...fakeClient(log, {
        'views.update': (a) => {
          updates.push(a);
          return { ok: true };
        },
      }),
      conversations: {
        members: async () => ({ ok: true, members: o.members ?? [] }),
        info: async () => ({ ok: true, channel: { id: 'C0OTHER', is_member: true } }),
        open: async () => ({ ok: true, channel: { id: 'D1' } }),
      },
      users: { info: async () => ({ ok: true, user: { tz: 'UTC', is_admin: false } }) },
    };
    const { body, view, context } = submission('watch_subscribe', {
      user: o.user ?? 'U0MEMBER',
      privateMetadata: JSON.stringify(meta),
      values,
    });
    await cap.views.get('watch_subscribe')!({
      ack: async (r: unknown) => {
        acks.push(r);
      },
      body,
      view,
      context,
      client,
    });
    const subs = await new Subscriptions(deps.store, deps.now).list('T1');
    const audit = await deps.store.audit.list('T1', { limit: 10 });
    await deps.store.close();
    return { acks, updates: JSON.stringify(updates), subs, audit };
  }

  it('refuses a channel the member is not in (metadata changed on the client), and audits it', async () => {
    const r = await submit({ w: 'T1', c: 'C0OTHER' }, { members: ['U0SOMEONE'] });
    expect(r.subs).toEqual([]);
    expect(r.updates).toContain('You are not a member of');
    expect(r.audit.map((a) => `${a.action} ${a.result}`)).toContain('watch.create refused');
  });

  it('subscribes a channel the member is in', async () => {
    const r = await submit({ w: 'T1', c: 'C0OTHER' }, { members: ['U0MEMBER'] });
    expect(r.subs.map((s) => s.channelId)).toEqual(['C0OTHER']);
  });

  it('refuses metadata of another workspace, and untagged metadata, with an inline error', async () => {
    for (const meta of [{ w: 'T2', c: 'C0OTHER' }, { c: 'C0OTHER' }]) {
      const r = await submit(meta, { members: ['U0MEMBER'] });
      expect(r.subs).toEqual([]);
      expect(JSON.stringify(r.acks)).toContain('Run /dwm watch in the channel again.');
    }
  });
});

describe('a form whose submit fails while "Saving…" shows', () => {
  const failing = modal<{ w: string }, undefined>({
    name: 'test.failing',
    callbackId: 'test_failing',
    meta: z.object({ w: z.string() }),
    stale: { block: 'note', text: 'Out of date.' },
    ackView: () => ({
      type: 'modal',
      callback_id: 'saving',
      title: { type: 'plain_text', text: 'T' },
      blocks: [],
    }),
    failure: "Couldn't save the note",
    async submit() {
      throw new Error('boom');
    },
  });

  async function run(blocks: unknown[]) {
    const deps = await memoryDeps();
    const cap = captureApp();
    registerInteractions(cap.app, deps, [failing], registry);
    const updates: Array<{ view: { blocks: Array<Record<string, unknown>>; callback_id: string } }> = [];
    const replies: unknown[] = [];
    const client = fakeClient([], {
      'views.update': (a) => {
        updates.push(a as (typeof updates)[number]);
        return { ok: true };
      },
    });
    const { body, view, context } = submission('test_failing', {
      privateMetadata: JSON.stringify({ w: 'T1' }),
      values: { note: { value: { type: 'plain_text_input', value: 'keep me' } } },
      blocks,
    });
    await cap.views.get('test_failing')!({
      ack: async () => undefined,
      body,
      view: { ...view, title: { type: 'plain_text', text: 'Note' } },
      context,
      client,
      respond: async (m: unknown) => {
        replies.push(m);
      },
    });
    await deps.store.close();
    return { updates, replies };
  }

  it('comes back with what was entered and the failure on top, not left on "Saving…"', async () => {
    const r = await run([textInput('note', 'Note')]);
    const last = r.updates.at(-1)?.view;
    expect(last?.callback_id).toBe('test_failing');
    expect(JSON.stringify(last?.blocks[0])).toContain("Couldn't save the note");
    const input = last?.blocks.find((b) => b.block_id === 'note') as { element: { initial_value?: string } };
    expect(input.element.initial_value).toBe('keep me');
    expect(r.replies).toEqual([]);
  });

  it('a view with nothing to give back shows the failure in its place', async () => {
    const r = await run([section('Nothing to type here.')]);
    const last = r.updates.at(-1)?.view;
    expect(last?.callback_id).toBe('test_failing_failed');
    expect(JSON.stringify(last?.blocks)).toContain("Couldn't save the note");
  });
});
