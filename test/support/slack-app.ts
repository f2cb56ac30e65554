/**
 * Small fakes for the Slack-layer guarantee tests: a Bolt `App` stand-in that captures the listeners a
 * module registers (so a handler can be called directly with our own ack and client), AppDeps over
 * a memory store with env credentials, and an event log shared by the fakes to assert ORDER
 * ("ack before users.info"), never time.
 */
import { randomBytes } from 'node:crypto';
import type { App } from '@slack/bolt';
import type { ServiceClient, WatermarkingClient } from '../../src/api/types.js';
import type { Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import type { AppDeps } from '../../src/slack/deps.js';
import { createStore } from '../../src/store/index.js';

// biome-ignore lint/suspicious/noExplicitAny: Bolt listener arguments are loosely typed here
export type Listener = (args: any) => Promise<void>;

export interface CapturedApp {
  app: App;
  /** The modal listener for a callback id, routed as Bolt would (undefined when none takes it). */
  views: { get(callbackId: string): Listener | undefined };
  /** The button listener for an action id, routed as Bolt would (throws when none takes it). */
  action(id: string): Listener;
  /** Would a registered listener's own middleware pass this id on to its handler? */
  reaches(kind: 'view' | 'action', id: string): Promise<boolean>;
}

interface Chain {
  constraint: string | RegExp;
  /** Listener middleware first, the handler last (Bolt's `app.action(id, ...middleware, handler)`). */
  fns: Listener[];
}

const matches = (c: string | RegExp, id: string) => (typeof c === 'string' ? c === id : c.test(id));

/** Runs a chain like Bolt: each function gets `next` for the following one. */
async function runChain(fns: Listener[], args: Record<string, unknown>): Promise<void> {
  let i = 0;
  const next = async (): Promise<void> => {
    const fn = fns[i++];
    if (fn) await fn({ ...args, next });
  };
  await next();
}

/**
 * An App that only records `view`/`action` registrations (and ignores the rest). Calling a
 * captured listener runs its listener middleware first, with the id in the payload as Bolt puts
 * it there (`body.view.callback_id`, the action's `action_id`).
 */
export function captureApp(): CapturedApp {
  const views: Chain[] = [];
  const actions: Chain[] = [];
  const app = {
    view: (constraint: string | RegExp, ...fns: Listener[]) => views.push({ constraint, fns }),
    action: (constraint: string | RegExp, ...fns: Listener[]) => actions.push({ constraint, fns }),
    command: () => undefined,
    event: () => undefined,
    options: () => undefined,
    use: () => undefined,
  } as unknown as App;
  // biome-ignore lint/suspicious/noExplicitAny: Bolt listener arguments are loosely typed here
  const viewArgs = (id: string, args: any) => ({
    ...args,
    body: { ...args.body, view: { ...(args.body?.view ?? args.view ?? {}), callback_id: id } },
  });
  // biome-ignore lint/suspicious/noExplicitAny: Bolt listener arguments are loosely typed here
  const actionArgs = (id: string, args: any) => ({
    ...args,
    payload: { ...(args.action ?? args.body?.actions?.[0] ?? {}), action_id: id },
  });
  return {
    app,
    views: {
      get(id) {
        const hit = views.find((v) => matches(v.constraint, id));
        return hit ? (args) => runChain(hit.fns, viewArgs(id, args)) : undefined;
      },
    },
    action(id: string) {
      const hit = actions.find((a) => matches(a.constraint, id));
      if (!hit) throw new Error(`no action listener for ${id}`);
      return (args) => runChain(hit.fns, actionArgs(id, args));
    },
    async reaches(kind, id) {
      const hit = (kind === 'view' ? views : actions).find((c) => matches(c.constraint, id));
      if (!hit) return false;
      let reached = false;
      const probe = kind === 'view' ? viewArgs(id, {}) : actionArgs(id, {});
      const sentinel = async () => {
        reached = true;
      };
      await runChain([...hit.fns.slice(0, -1), sentinel], probe);
      return reached;
    },
  };
}

export interface DepsOptions {
  adminUserIds?: string[];
  auditChannelId?: string;
  wm?: Partial<WatermarkingClient>;
  svc?: Partial<ServiceClient>;
}

/** AppDeps: single-workspace mode, env credentials for site DEMO, memory store, fake API clients. */
export async function memoryDeps(o: DepsOptions = {}): Promise<AppDeps> {
  const store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
  const config = {
    mode: 'http',
    distribution: 'single',
    slack: { apiUrl: 'http://127.0.0.1:9/api/', botToken: 'xoxb-review' },
    envCredentials: {
      siteIds: ['DEMO'],
      defaultSiteId: 'DEMO',
      watermarking: { accountId: 'acc', accessKey: 'k'.repeat(32), baseUrl: 'http://127.0.0.1:9/wm' },
      service: {
        accountId: 'svc',
        accountSeq: '1',
        secretKey: 's'.repeat(32),
        baseUrl: 'http://127.0.0.1:9/svc',
      },
    },
    adminUserIds: o.adminUserIds ?? [],
    ...(o.auditChannelId ? { auditChannelId: o.auditChannelId } : {}),
    pollIntervalSeconds: 60,
  } as unknown as Config;
  return {
    config,
    store,
    api: {
      watermarking: () => (o.wm ?? {}) as WatermarkingClient,
      service: () => (o.svc ?? {}) as ServiceClient,
      close: async () => undefined,
    },
    logger: createLogger({ level: 'silent' }),
    now: () => Date.UTC(2026, 10, 22, 9, 0, 0),
  };
}

/** A WebClient stand-in whose calls append to `log` (method names) and answer `ok`. */
export function fakeClient(log: string[], overrides: Record<string, (args: unknown) => unknown> = {}) {
  const call = (name: string) => async (args: unknown) => {
    log.push(name);
    const o = overrides[name];
    if (o) return o(args);
    return { ok: true, ts: '1.000001', channel: { id: 'D1' }, view: { id: 'V1' } };
  };
  return {
    token: 'xoxb-review',
    users: {
      info: async (args: unknown) => {
        log.push('users.info');
        const o = overrides['users.info'];
        return o ? o(args) : { ok: true, user: { tz: 'UTC', is_admin: true } };
      },
    },
    usergroups: { users: { list: call('usergroups.users.list') } },
    auth: { test: call('auth.test') },
    chat: {
      postMessage: call('chat.postMessage'),
      postEphemeral: call('chat.postEphemeral'),
      update: call('chat.update'),
    },
    views: { open: call('views.open'), update: call('views.update'), push: call('views.push') },
    conversations: { open: call('conversations.open'), info: call('conversations.info') },
  };
}

/**
 * A users.info override (for `fakeClient`) that answers with `user` only once the test calls
 * `release()`: a slow Slack, to see what happens before the role is known (order in `log`).
 */
export function deferredUsersInfo(log: string[], user: Record<string, unknown>) {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  return {
    release,
    override: {
      'users.info': async () => {
        await gate;
        log.push('users.info answered');
        return { ok: true, user };
      },
    },
  };
}

/** A view_submission body/view of workspace T1 by `user`. */
export function submission(
  callbackId: string,
  o: {
    user?: string;
    values?: Record<string, Record<string, unknown>>;
    privateMetadata?: string;
    blocks?: unknown[];
  } = {},
) {
  const view = {
    id: 'V1',
    callback_id: callbackId,
    private_metadata: o.privateMetadata ?? '',
    state: { values: o.values ?? {} },
    blocks: o.blocks ?? [],
  };
  return {
    body: { type: 'view_submission', team: { id: 'T1' }, user: { id: o.user ?? 'U1' }, view },
    view,
    context: { teamId: 'T1' },
  };
}
