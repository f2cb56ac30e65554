/**
 * Slack guest accounts (single- and multi-channel guests: users.info `is_restricted` /
 * `is_ultra_restricted`) and GUEST_ACCESS. With `none` (the default) a guest is refused every
 * command (help included), button and modal submission, in the kit's one place per kind, and a
 * user Slack cannot tell the bot about is refused with "try again"; with `member` a guest acts as
 * a member, never as an admin unless listed by id. Order (ack before users.info, the modal before
 * a slow users.info answers) is asserted on a shared log, never on time.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commandsTotal } from '../../../../../src/metrics.js';
import { publishHome } from '../../../../../src/slack/features/home/publish.js';
import { required } from '../../../../../src/slack/kit/commands/parse.js';
import { CommandRegistry } from '../../../../../src/slack/kit/commands/registry.js';
import { createContext } from '../../../../../src/slack/kit/context/context.js';
import { setRoleCheckBudgetMs } from '../../../../../src/slack/kit/context/roles/admission.js';
import { clearRoleCaches } from '../../../../../src/slack/kit/context/roles/slack-users.js';
import { localStanding, resolveStanding } from '../../../../../src/slack/kit/context/roles/standing.js';
import { registerInteractions } from '../../../../../src/slack/kit/interactions/listeners.js';
import { button, modal } from '../../../../../src/slack/kit/interactions/registry.js';
import {
  captureApp,
  deferredUsersInfo,
  fakeClient,
  memoryDeps,
  submission,
} from '../../../../support/slack-app.js';

type Deps = Awaited<ReturnType<typeof memoryDeps>>;

/** users.info as Slack answers it for a full member, a multi- / single-channel guest, an admin. */
const USERS: Record<string, Record<string, unknown>> = {
  UMEMBER: { tz: 'UTC' },
  UGUEST: { tz: 'UTC', is_restricted: true },
  USINGLE: { tz: 'UTC', is_restricted: true, is_ultra_restricted: true },
  USLACKADMIN: { tz: 'UTC', is_admin: true },
};

function slack(log: string[], extra: Record<string, (a: unknown) => unknown> = {}) {
  return fakeClient(log, {
    'users.info': (a) => {
      const user = USERS[(a as { user: string }).user];
      if (!user) throw new Error('slack down');
      return { ok: true, user };
    },
    ...extra,
  });
}

async function withAccess(access: 'none' | 'member' | undefined, adminUserIds: string[] = []): Promise<Deps> {
  const deps = await memoryDeps({ adminUserIds });
  if (access) deps.config.guestAccess = access;
  return deps;
}

function ctxFor(deps: Deps, client: unknown, userId: string, o: { triggerId?: string } = {}) {
  const replies: string[] = [];
  const ctx = createContext({
    deps,
    client: client as never,
    teamId: 'T1',
    userId,
    channelId: 'C1',
    ...(o.triggerId ? { triggerId: o.triggerId } : {}),
  });
  ctx.respond = async (m) => {
    replies.push(`${m.text}\n${JSON.stringify(m.blocks ?? [])}`);
  };
  return { ctx, replies };
}

async function metric(command: string, outcome: string): Promise<number> {
  const m = await commandsTotal.get();
  return m.values.find((v) => v.labels.command === command && v.labels.outcome === outcome)?.value ?? 0;
}

/** A registry with one member command, one admin command and one member command opening a form. */
function registry(ran: string[]) {
  const reg = new CommandRegistry();
  reg.add({
    command: '/dwm',
    path: ['gjobs'],
    args: {},
    role: 'member',
    summary: 'List things',
    async handler(ctx) {
      ran.push(`gjobs as ${await ctx.role()}`);
    },
  });
  reg.add({
    command: '/dwm',
    path: ['gadmin'],
    args: {},
    role: 'admin',
    summary: 'Admin thing',
    async handler() {
      ran.push('gadmin');
    },
  });
  reg.add({
    command: '/dwm',
    path: ['gform'],
    args: {},
    role: 'member',
    opensModal: true,
    summary: 'Open a form',
    async handler(ctx) {
      await ctx.openView({
        type: 'modal',
        callback_id: 'f',
        title: { type: 'plain_text', text: 'F' },
        blocks: [],
      });
      ran.push('gform');
    },
  });
  return reg.seal();
}

describe('who is a guest (resolveStanding)', () => {
  it('GUEST_ACCESS unset or none: multi- and single-channel guests are barred; members and Slack admins are not', async () => {
    for (const access of [undefined, 'none'] as const) {
      const deps = await withAccess(access);
      const client = slack([]) as never;
      const got = await Promise.all(
        ['UGUEST', 'USINGLE', 'UMEMBER', 'USLACKADMIN'].map((u) => resolveStanding(deps, client, 'T1', u)),
      );
      expect(got).toEqual(['guest', 'guest', 'member', 'admin']);
    }
  });

  it('GUEST_ACCESS=member: a guest is a member, never an admin through the admin user group', async () => {
    const deps = await withAccess('member');
    await deps.store.settings.put('T1', { adminUserIds: [], adminUsergroupId: 'S0ADMINS' });
    const client = slack([], { 'usergroups.users.list': () => ({ ok: true, users: ['UGUEST', 'UMEMBER'] }) });
    expect(await resolveStanding(deps, client as never, 'T1', 'UGUEST')).toBe('member');
    expect(await resolveStanding(deps, client as never, 'T1', 'UMEMBER')).toBe('admin');
  });

  it('an admin listed by id (ADMIN_USER_IDS or the workspace settings) is an admin even as a guest, without asking Slack', async () => {
    const deps = await withAccess('none', ['UGUEST']);
    await deps.store.settings.put('T1', { adminUserIds: ['USINGLE'] });
    const log: string[] = [];
    expect(await resolveStanding(deps, slack(log) as never, 'T1', 'UGUEST')).toBe('admin');
    expect(await resolveStanding(deps, slack(log) as never, 'T1', 'USINGLE')).toBe('admin');
    expect(log).toEqual([]);
  });

  it('users.info failing: Slack not knowing the user refuses (unverified), an outage keeps the last answer or admits a member', async () => {
    const notFound = Object.assign(new Error('An API error occurred: user_not_found'), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'user_not_found' },
    });
    const failing = (log: string[], down: Set<string>) =>
      slack(log, {
        'users.info': (a) => {
          const id = (a as { user: string }).user;
          if (id === 'UFOREIGN') throw notFound;
          if (down.has(id)) throw new Error('slack down');
          const user = USERS[id];
          if (!user) throw new Error('slack down');
          return { ok: true, user };
        },
      });
    const none = await withAccess('none', ['T1:UADMIN']);
    // Slack says it does not know the user here (another workspace or organisation): refused.
    expect(await resolveStanding(none, failing([], new Set()) as never, 'T1', 'UFOREIGN')).toBe('unverified');
    expect(await localStanding(none, 'T1', 'UFOREIGN')).toBeUndefined();
    // Slack cannot answer for a user never seen: a member for this request, never an admin.
    expect(await resolveStanding(none, failing([], new Set()) as never, 'T1', 'UNKNOWN')).toBe('member');
    // A guest seen before stays a guest while Slack cannot answer; an admin seen before is not
    // an admin from memory.
    expect(await resolveStanding(none, failing([], new Set()) as never, 'T1', 'UGUEST')).toBe('guest');
    expect(await resolveStanding(none, failing([], new Set()) as never, 'T1', 'USLACKADMIN')).toBe('admin');
    clearRoleCaches(none);
    const down = new Set(['UGUEST', 'USLACKADMIN']);
    expect(await resolveStanding(none, failing([], down) as never, 'T1', 'UGUEST')).toBe('guest');
    expect(await resolveStanding(none, failing([], down) as never, 'T1', 'USLACKADMIN')).toBe('member');
    // The admins listed by id keep working through a Slack outage.
    expect(await resolveStanding(none, failing([], down) as never, 'T1', 'UADMIN')).toBe('admin');
    const member = await withAccess('member');
    expect(await resolveStanding(member, failing([], new Set()) as never, 'T1', 'UFOREIGN')).toBe('member');
  });
});

describe('users of another organisation (Slack Connect): resolveStanding', () => {
  /**
   * users.info as Slack answers it, with the bot of workspace T1, for people seen through a
   * shared channel: their own team id, their organisation's admin flags, Grid fields.
   */
  const PEOPLE: Record<string, Record<string, unknown>> = {
    UHOME: { tz: 'UTC', team_id: 'T1' },
    UHOMEADMIN: { tz: 'UTC', team_id: 'T1', is_admin: true },
    // Another organisation: their admin / owner flags describe THEIR workspace.
    UEXTADMIN: { tz: 'UTC', team_id: 'T0OTHER', is_admin: true, is_owner: true },
    UEXT: { tz: 'UTC', team_id: 'T0OTHER' },
    USTRANGER: { tz: 'UTC', team_id: 'T0OTHER', is_stranger: true, is_admin: true },
    // Enterprise Grid: a colleague of the same Grid (E1) from another workspace of it, and an
    // admin of another Grid (E9).
    UGRIDMATE: {
      tz: 'UTC',
      team_id: 'T2',
      is_admin: true,
      enterprise_user: { enterprise_id: 'E1', teams: ['T2'] },
    },
    UOTHERGRID: {
      tz: 'UTC',
      team_id: 'T9',
      is_admin: true,
      enterprise_user: { enterprise_id: 'E9', teams: ['T9'] },
    },
    // No team id at all: nothing to compare, today's behaviour.
    UNOTEAM: { tz: 'UTC', is_admin: true },
  };
  function connect(log: string[], o: { enterprise?: string | 'fail' } = {}) {
    return fakeClient(log, {
      'users.info': (a) => {
        const user = PEOPLE[(a as { user: string }).user];
        if (!user) throw new Error('slack down');
        return { ok: true, user };
      },
      'auth.test': () => {
        if (o.enterprise === 'fail') throw new Error('slack down');
        return { ok: true, team_id: 'T1', ...(o.enterprise ? { enterprise_id: o.enterprise } : {}) };
      },
    });
  }

  it('an admin of another organisation is never an admin here: refused with none, a member with member (also through the admin group)', async () => {
    const none = await withAccess('none');
    expect(await resolveStanding(none, connect([]) as never, 'T1', 'UEXTADMIN')).toBe('external');
    expect(await resolveStanding(none, connect([]) as never, 'T1', 'UEXT')).toBe('external');
    // Known from the cache without a Slack call (view submissions): the same answer.
    expect(await localStanding(none, 'T1', 'UEXTADMIN')).toBe('external');
    const member = await withAccess('member');
    await member.store.settings.put('T1', { adminUserIds: [], adminUsergroupId: 'S0ADMINS' });
    const client = fakeClient([], {
      'users.info': (a) => ({ ok: true, user: PEOPLE[(a as { user: string }).user] }),
      'usergroups.users.list': () => ({ ok: true, users: ['UEXTADMIN', 'UHOME'] }),
    });
    expect(await resolveStanding(member, client as never, 'T1', 'UEXTADMIN')).toBe('member');
    expect(await localStanding(member, 'T1', 'UEXTADMIN')).toBe('member');
    expect(await resolveStanding(member, client as never, 'T1', 'UHOME')).toBe('admin');
  });

  it('is_stranger is external whatever else users.info says', async () => {
    const none = await withAccess('none');
    expect(await resolveStanding(none, connect([]) as never, 'T1', 'USTRANGER')).toBe('external');
    const member = await withAccess('member');
    expect(await resolveStanding(member, connect([]) as never, 'T1', 'USTRANGER')).toBe('member');
  });

  it('an id listed explicitly as admin (ADMIN_USER_IDS or the settings) is an admin even from another organisation', async () => {
    const deps = await withAccess('none', ['T1:UEXT']);
    await deps.store.settings.put('T1', { adminUserIds: ['UEXTADMIN'] });
    const log: string[] = [];
    expect(await resolveStanding(deps, connect(log) as never, 'T1', 'UEXT')).toBe('admin');
    expect(await resolveStanding(deps, connect(log) as never, 'T1', 'UEXTADMIN')).toBe('admin');
    expect(log).toEqual([]);
  });

  it("a colleague of the same Enterprise Grid (another workspace of it) is not external; another Grid's admin is", async () => {
    const deps = await withAccess('none');
    const log: string[] = [];
    expect(await resolveStanding(deps, connect(log, { enterprise: 'E1' }) as never, 'T1', 'UGRIDMATE')).toBe(
      'admin',
    );
    expect(await resolveStanding(deps, connect(log, { enterprise: 'E1' }) as never, 'T1', 'UOTHERGRID')).toBe(
      'external',
    );
    // The workspace's enterprise is asked once (auth.test) and remembered.
    expect(log.filter((c) => c === 'auth.test')).toEqual(['auth.test']);
    // A workspace in no Grid: a Grid user of another team is external.
    const plain = await withAccess('none');
    expect(await resolveStanding(plain, connect([]) as never, 'T1', 'UGRIDMATE')).toBe('external');
  });

  it("an org-wide install (the workspace key is the enterprise id): the Grid's users are not external, without asking auth.test", async () => {
    const deps = await withAccess('none');
    const log: string[] = [];
    expect(await resolveStanding(deps, connect(log) as never, 'E1', 'UGRIDMATE')).toBe('admin');
    expect(await resolveStanding(deps, connect(log) as never, 'E1', 'UOTHERGRID')).toBe('external');
    expect(log).not.toContain('auth.test');
  });

  it("OAuth: the workspace's enterprise comes from its installation in the store", async () => {
    const deps = await withAccess('none');
    (deps.config as { distribution: string }).distribution = 'oauth';
    await deps.store.installations.save('T1', {
      team: { id: 'T1' },
      enterprise: { id: 'E1' },
      isEnterpriseInstall: false,
    } as never);
    const log: string[] = [];
    expect(await resolveStanding(deps, connect(log) as never, 'T1', 'UGRIDMATE')).toBe('admin');
    expect(log).not.toContain('auth.test');
  });

  it("the workspace's enterprise unknown (auth.test failing): a Grid user of another team is external for that request only", async () => {
    const deps = await withAccess('none');
    expect(await resolveStanding(deps, connect([], { enterprise: 'fail' }) as never, 'T1', 'UGRIDMATE')).toBe(
      'external',
    );
    // Not cached: nothing known locally, and the next request asks again.
    expect(await localStanding(deps, 'T1', 'UGRIDMATE')).toBeUndefined();
    expect(await resolveStanding(deps, connect([], { enterprise: 'E1' }) as never, 'T1', 'UGRIDMATE')).toBe(
      'admin',
    );
  });

  it("no team_id in users.info: today's behaviour (a Slack admin is an admin); this workspace's own users are unchanged", async () => {
    const deps = await withAccess('none');
    const log: string[] = [];
    expect(await resolveStanding(deps, connect(log) as never, 'T1', 'UNOTEAM')).toBe('admin');
    expect(await resolveStanding(deps, connect(log) as never, 'T1', 'UHOMEADMIN')).toBe('admin');
    expect(await resolveStanding(deps, connect(log) as never, 'T1', 'UHOME')).toBe('member');
    expect(log).not.toContain('auth.test');
  });

  it('refused with what / why / next naming the other organisation; audited as refused', async () => {
    const deps = await withAccess('none', ['T1:UBOSS']);
    const ran: string[] = [];
    const { ctx, replies } = ctxFor(deps, connect([]), 'UEXTADMIN');
    await registry(ran).dispatch(ctx, 'gadmin');
    expect(ran).toEqual([]);
    expect(replies[0]).toContain("Accounts of other organisations can't use this bot in this workspace");
    expect(replies[0]).toContain('belongs to another organisation');
    expect(replies[0]).toContain('<@UBOSS>');
    const audit = await deps.store.audit.list('T1', { limit: 5 });
    expect(audit.find((a) => a.action === 'command.gadmin')).toMatchObject({ result: 'refused' });
    expect(audit.find((a) => a.action === 'command.gadmin')?.detail).toContain('another organisation');
  });
});

describe('commands (the registry dispatch)', () => {
  it('a guest is refused a member command and help, told why and who to ask; audited, metric "refused", nothing runs', async () => {
    const deps = await withAccess(undefined, ['UBOSS']);
    const ran: string[] = [];
    const reg = registry(ran);
    const before = await metric('/dwm gjobs', 'refused');
    for (const text of ['gjobs', 'help', 'nosuch']) {
      const { ctx, replies } = ctxFor(deps, slack([]), 'USINGLE');
      await reg.dispatch(ctx, text);
      expect(replies).toHaveLength(1);
      expect(replies[0]).toContain("Guest accounts can't use this bot in this workspace");
      expect(replies[0]).toContain('<@UBOSS>');
      expect(replies[0]).not.toContain('gadmin');
    }
    expect(ran).toEqual([]);
    expect(await metric('/dwm gjobs', 'refused')).toBe(before + 1);
    const audit = await deps.store.audit.list('T1', { limit: 10 });
    expect(audit.map((a) => `${a.action} ${a.result}`)).toEqual(
      expect.arrayContaining(['command.gjobs refused', 'command.help refused', 'command.unknown refused']),
    );
    expect(audit.find((a) => a.action === 'command.gjobs')?.detail).toContain('guest account');
  });

  it('a user Slack does not know in this workspace is refused (GUEST_ACCESS=none); one Slack cannot answer about runs as a member', async () => {
    const deps = await withAccess('none');
    const ran: string[] = [];
    const notFound = Object.assign(new Error('An API error occurred: user_not_found'), {
      code: 'slack_webapi_platform_error',
      data: { ok: false, error: 'user_not_found' },
    });
    const foreign = slack([], {
      'users.info': () => {
        throw notFound;
      },
    });
    const { ctx, replies } = ctxFor(deps, foreign, 'UFOREIGN');
    await registry(ran).dispatch(ctx, 'gjobs');
    expect(ran).toEqual([]);
    expect(replies[0]).toContain("Couldn't confirm your account in this workspace");
    const down = ctxFor(deps, slack([]), 'UNKNOWN');
    await registry(ran).dispatch(down.ctx, 'gjobs');
    expect(ran).toEqual(['gjobs as member']);
  });

  it('GUEST_ACCESS=member: a guest runs member commands as a member and is refused admin ones', async () => {
    const deps = await withAccess('member');
    const ran: string[] = [];
    const reg = registry(ran);
    const a = ctxFor(deps, slack([]), 'UGUEST');
    await reg.dispatch(a.ctx, 'gjobs');
    expect(ran).toEqual(['gjobs as member']);
    const b = ctxFor(deps, slack([]), 'UGUEST');
    await reg.dispatch(b.ctx, 'gadmin');
    expect(ran).toEqual(['gjobs as member']);
    expect(b.replies[0]).toContain('Only admins can run /dwm gadmin');
  });

  it('a guest whose id is a configured admin runs admin commands', async () => {
    const deps = await withAccess('none', ['T1:USINGLE']);
    const ran: string[] = [];
    const { ctx } = ctxFor(deps, slack([]), 'USINGLE');
    await registry(ran).dispatch(ctx, 'gadmin');
    expect(ran).toEqual(['gadmin']);
  });

  it('a slow users.info for a guest on a command that opens a form: the "Checking…" modal opens first, then says guests cannot use the bot', async () => {
    const deps = await withAccess('none');
    setRoleCheckBudgetMs(deps, 0);
    const log: string[] = [];
    const updates: unknown[] = [];
    const slow = deferredUsersInfo(log, { is_restricted: true });
    const client = fakeClient(log, {
      ...slow.override,
      'views.update': (a) => {
        updates.push(a);
        return { ok: true };
      },
    });
    const ran: string[] = [];
    const { ctx } = ctxFor(deps, client, 'UGUEST', { triggerId: 'trig' });
    const done = registry(ran).dispatch(ctx, 'gform');
    await expect.poll(() => log.includes('views.open')).toBe(true);
    expect(log).not.toContain('users.info answered');
    slow.release();
    await done;
    expect(ran).toEqual([]);
    expect(log).toEqual(['users.info', 'views.open', 'users.info answered', 'views.update']);
    expect(JSON.stringify(updates[0])).toContain("Guest accounts can't use this bot");
  });

  it('a slow users.info for a member on a command that opens a form: the modal opens in time and becomes the form', async () => {
    const deps = await withAccess('none');
    setRoleCheckBudgetMs(deps, 0);
    const log: string[] = [];
    const slow = deferredUsersInfo(log, {});
    const ran: string[] = [];
    const { ctx } = ctxFor(deps, fakeClient(log, slow.override), 'UMEMBER', { triggerId: 'trig' });
    const done = registry(ran).dispatch(ctx, 'gform');
    await expect.poll(() => log.includes('views.open')).toBe(true);
    slow.release();
    await done;
    expect(ran).toEqual(['gform']);
    expect(log).toEqual(['users.info', 'views.open', 'users.info answered', 'views.update']);
  });

  it('an admin-only command with a missing argument: the missing-argument form opens before a slow users.info answers', async () => {
    const reg = new CommandRegistry();
    reg.add({
      command: '/dwm',
      path: ['gname'],
      args: { name: required(z.string(), { hint: 'a name', description: 'The name' }) },
      role: 'admin',
      summary: 'Name a thing',
      async handler() {},
    });
    const deps = await withAccess('none');
    setRoleCheckBudgetMs(deps, 0);
    const log: string[] = [];
    const updates: unknown[] = [];
    const slow = deferredUsersInfo(log, { is_admin: true });
    const client = fakeClient(log, {
      ...slow.override,
      'views.update': (a) => {
        updates.push(a);
        return { ok: true };
      },
    });
    const { ctx } = ctxFor(deps, client, 'USLOWADMIN', { triggerId: 'trig' });
    const done = reg.dispatch(ctx, 'gname');
    await expect.poll(() => log.includes('views.open')).toBe(true);
    expect(log).not.toContain('users.info answered');
    slow.release();
    await done;
    // The "Checking…" modal held the trigger id; the form then filled it.
    expect(log).toEqual(['users.info', 'views.open', 'users.info answered', 'views.update']);
    expect(JSON.stringify(updates[0])).toContain('a name');
  });
});

function click(actionId: string, user: string) {
  return {
    type: 'block_actions',
    team: { id: 'T1' },
    user: { id: user },
    channel: { id: 'C1' },
    container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C1' },
    response_url: 'https://hooks.slack.com/actions/x',
    actions: [{ action_id: actionId, value: JSON.stringify({ w: 'T1' }) }],
  };
}

describe('buttons (the interaction kit, at click time)', () => {
  async function clickAs(user: string, access: 'none' | 'member') {
    const deps = await withAccess(access);
    const ran: string[] = [];
    const cap = captureApp();
    registerInteractions(
      cap.app,
      deps,
      [
        button({
          name: 'test.guestbtn',
          actionId: 'test_guestbtn',
          value: (raw) => (raw ? (JSON.parse(raw) as { w: string }) : undefined),
          failure: 'no',
          run: async (ctx) => {
            ran.push(await ctx.role());
          },
        }),
      ],
      new CommandRegistry().seal(),
    );
    const replies: string[] = [];
    await cap.action('test_guestbtn')({
      ack: async () => undefined,
      body: click('test_guestbtn', user),
      context: { teamId: 'T1' },
      client: slack([]),
      respond: async (m: unknown) => {
        replies.push(JSON.stringify(m));
      },
    });
    const audit = await deps.store.audit.list('T1', { limit: 10 });
    return { ran, replies, audit: audit.map((a) => `${a.action} ${a.result}`) };
  }

  it('a guest clicking a member button is refused (audited, metric "refused") and it never runs', async () => {
    const before = await metric('button:test.guestbtn', 'refused');
    const r = await clickAs('UGUEST', 'none');
    expect(r.ran).toEqual([]);
    expect(r.replies.join()).toContain("Guest accounts can't use this bot");
    expect(r.audit).toContain('test.guestbtn refused');
    expect(await metric('button:test.guestbtn', 'refused')).toBe(before + 1);
  });

  it('GUEST_ACCESS=member: the guest clicks as a member', async () => {
    const r = await clickAs('UGUEST', 'member');
    expect(r.ran).toEqual(['member']);
  });
});

describe('modal submissions (the interaction kit, at submit time)', () => {
  async function submitAs(
    user: string,
    o: { cached?: boolean; ackView?: boolean; access?: 'none' | 'member' } = {},
  ) {
    const deps = await withAccess(o.access ?? 'none');
    const submitted: string[] = [];
    const cap = captureApp();
    const saving = {
      type: 'modal' as const,
      callback_id: 'x',
      title: { type: 'plain_text' as const, text: 'Saving' },
      blocks: [],
    };
    registerInteractions(
      cap.app,
      deps,
      [
        modal<{ w: string }, undefined>({
          name: 'test.guestform',
          callbackId: 'test_guestform',
          meta: (raw) => (raw ? (JSON.parse(raw) as { w: string }) : undefined),
          stale: { block: 'b', text: 'stale' },
          ...(o.ackView ? { ackView: () => saving } : {}),
          failure: 'no',
          check: () => ({ ok: undefined }),
          async submit(ctx) {
            submitted.push(await ctx.role());
            return undefined;
          },
        }),
      ],
      new CommandRegistry().seal(),
    );
    const log: string[] = [];
    const acks: unknown[] = [];
    const updates: unknown[] = [];
    const client = slack(log, {
      'views.update': (a) => {
        updates.push(a);
        return { ok: true };
      },
    });
    if (o.cached) await resolveStanding(deps, client as never, 'T1', user);
    log.length = 0;
    const { body, view, context } = submission('test_guestform', { user, privateMetadata: '{"w":"T1"}' });
    await cap.views.get('test_guestform')!({
      ack: async (r: unknown) => {
        log.push('ack');
        acks.push(r);
      },
      body,
      view,
      context,
      client,
    });
    const audit = await deps.store.audit.list('T1', { limit: 10 });
    return { submitted, log, acks, updates, audit: audit.map((a) => `${a.action} ${a.result}`) };
  }

  it('a guest known from the cache: the form becomes the refusal at the ack, no Slack call before it, nothing submitted', async () => {
    const before = await metric('modal:test.guestform', 'refused');
    const r = await submitAs('UGUEST', { cached: true });
    expect(r.submitted).toEqual([]);
    expect(r.log[0]).toBe('ack');
    expect(r.acks[0]).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify(r.acks[0])).toContain("Guest accounts can't use this bot");
    expect(r.audit).toContain('test.guestform refused');
    expect(await metric('modal:test.guestform', 'refused')).toBe(before + 1);
  });

  it('a guest not known yet: acked first, then asked from Slack; the "Saving…" view becomes the refusal, nothing submitted', async () => {
    const r = await submitAs('USINGLE', { ackView: true });
    expect(r.submitted).toEqual([]);
    expect(r.log.indexOf('ack')).toBeLessThan(r.log.indexOf('users.info'));
    expect(JSON.stringify(r.updates[0])).toContain("Guest accounts can't use this bot");
    expect(r.audit).toContain('test.guestform refused');
  });

  it('a guest not known yet, form closed at the ack: told by message, nothing submitted', async () => {
    const r = await submitAs('UGUEST');
    expect(r.submitted).toEqual([]);
    expect(r.log.indexOf('ack')).toBeLessThan(r.log.indexOf('users.info'));
    expect(r.log).toContain('chat.postMessage');
  });

  it("a form opened by someone of another organisation (Slack Connect: `team` is theirs, view.app_installed_team_id this one): this workspace's form, refused as external", async () => {
    for (const access of ['none', 'member'] as const) {
      const deps = await withAccess(access);
      const submitted: string[] = [];
      const cap = captureApp();
      registerInteractions(
        cap.app,
        deps,
        [
          modal<{ w: string }, undefined>({
            name: 'test.extform',
            callbackId: 'test_extform',
            meta: (raw) => (raw ? (JSON.parse(raw) as { w: string }) : undefined),
            stale: { block: 'b', text: 'stale' },
            failure: 'no',
            check: () => ({ ok: undefined }),
            async submit(ctx) {
              submitted.push(`${ctx.workspace} ${await ctx.standing()}`);
              return undefined;
            },
          }),
        ],
        new CommandRegistry().seal(),
      );
      const acks: unknown[] = [];
      const client = slack([], {
        'users.info': () => ({ ok: true, user: { tz: 'UTC', team_id: 'T0OTHER', is_admin: true } }),
      });
      const s = submission('test_extform', { user: 'UEXT', privateMetadata: '{"w":"T1"}' });
      const view = { ...s.view, app_installed_team_id: 'T1' };
      await cap.views.get('test_extform')!({
        ack: async (r: unknown) => {
          acks.push(r);
        },
        body: { ...s.body, team: { id: 'T0OTHER' }, view },
        view,
        context: { teamId: 'T1' },
        client,
      });
      const audit = await deps.store.audit.list('T1', { limit: 5 });
      if (access === 'none') {
        expect(submitted).toEqual([]);
        expect(audit.map((a) => `${a.action} ${a.result}`)).toContain('test.extform refused');
      } else {
        expect(submitted).toEqual(['T1 member']);
      }
    }
  });

  it('a member (and a guest with GUEST_ACCESS=member) submits as a member', async () => {
    expect((await submitAs('UMEMBER', { ackView: true })).submitted).toEqual(['member']);
    expect((await submitAs('UGUEST', { access: 'member' })).submitted).toEqual(['member']);
  });
});

describe('the Home tab', () => {
  it('a guest gets a tab that says they cannot use the bot, with no buttons and no data gathered', async () => {
    const deps = await withAccess('none', ['T1:UBOSS']);
    const published: unknown[] = [];
    const log: string[] = [];
    const client = {
      ...slack(log),
      views: {
        publish: async (a: unknown) => {
          published.push(a);
          return { ok: true };
        },
      },
    };
    await publishHome(deps, client as never, 'T1', 'UGUEST');
    expect(published).toHaveLength(1);
    const text = JSON.stringify(published[0]);
    expect(text).toContain("Guest accounts can't use this bot");
    expect(text).toContain('<@UBOSS>');
    expect(text).not.toContain('"actions"');
    expect(text).not.toContain('"button"');
  });
});
