/**
 * Small fakes for the Slack-layer guarantee tests: a Bolt `App` stand-in that captures the listeners a
 * module registers (so a handler can be called directly with our own ack and client), AppDeps over
 * a memory store with env credentials, and an event log shared by the fakes to assert ORDER
 * ("ack before users.info"), never time.
 */
import { randomBytes } from 'node:crypto';
import type { App } from '@slack/bolt';
import type { ServiceClient, WatermarkingClient } from '../../../src/api/types.js';
import type { Config } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import type { AppDeps } from '../../../src/slack/deps.js';
import { createStore } from '../../../src/store/index.js';

// biome-ignore lint/suspicious/noExplicitAny: Bolt listener arguments are loosely typed here
export type Listener = (args: any) => Promise<void>;

export interface CapturedApp {
  app: App;
  views: Map<string, Listener>;
  actions: Array<{ id: string | RegExp; fn: Listener }>;
  action(id: string): Listener;
}

/** An App that only records `view`/`action` registrations (and ignores the rest). */
export function captureApp(): CapturedApp {
  const views = new Map<string, Listener>();
  const actions: Array<{ id: string | RegExp; fn: Listener }> = [];
  const app = {
    view: (id: string, fn: Listener) => views.set(id, fn),
    action: (id: string | RegExp, fn: Listener) => actions.push({ id, fn }),
    command: () => undefined,
    event: () => undefined,
    use: () => undefined,
  } as unknown as App;
  return {
    app,
    views,
    actions,
    action(id: string) {
      const hit = actions.find((a) => (typeof a.id === 'string' ? a.id === id : a.id.test(id)));
      if (!hit) throw new Error(`no action listener for ${id}`);
      return hit.fn;
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
    chat: {
      postMessage: call('chat.postMessage'),
      postEphemeral: call('chat.postEphemeral'),
      update: call('chat.update'),
    },
    views: { open: call('views.open'), update: call('views.update'), push: call('views.push') },
    conversations: { open: call('conversations.open'), info: call('conversations.info') },
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
