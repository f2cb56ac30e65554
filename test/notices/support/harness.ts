/**
 * Test harness for the notify features: the emulator over loopback, the real API factory and
 * store, a virtual clock shared by all three, and `FakePorts`, a recording NotifyPorts with fault
 * injection (what the Slack layer will implement).
 */
import { startEmulator } from '../../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../../dev/emulator/types.js';
import { createApi } from '../../../src/api/index.js';
import type { WorkspaceCredentials } from '../../../src/api/types.js';
import { ALERT_DEFAULTS, alertSubscriptionId } from '../../../src/notices/alert-subscriptions.js';
import { createNotifier, type Notifier, type NotifierOptions } from '../../../src/notices/notifier.js';
import type {
  AlertSubscription,
  CardRef,
  Digest,
  LicenseAlert,
  NotifyEvent,
  NotifyPorts,
  PostedRef,
  RequestOutcomeNotice,
} from '../../../src/notices/types.js';
import { pausedReason } from '../../../src/slack/kit/blocks/paused-reason.js';
import { createStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/types.js';
import { FakeClock } from '../../../src/watch/clock.js';
import { ENCRYPTION_KEY } from '../../watch/support/harness.js';

export const WS = 'T0NOTIFY1';
export const SITE = 'AB12';
export const SITE2 = 'CD34';
export const SVC_ACCOUNT = 'acme-svc';

/**
 * A channel's license-alert subscription for SITE in WS with the default thresholds, created by
 * U0ALERTER at `createdAtMs`; `over` replaces fields (the id follows its channel and site).
 */
export function alertSubscription(
  channelId: string,
  createdAtMs: number,
  over: Partial<AlertSubscription> = {},
): AlertSubscription {
  return {
    id: alertSubscriptionId(over.channelId ?? channelId, over.siteId ?? SITE),
    workspace: WS,
    channelId,
    siteId: SITE,
    ...ALERT_DEFAULTS,
    createdBy: 'U0ALERTER',
    createdAt: new Date(createdAtMs).toISOString(),
    ...over,
  };
}

export interface Posted {
  kind: 'dm' | 'alert' | 'digest';
  channel: string;
  ts: string;
  key: string;
  userId?: string;
  threadTs?: string;
  body: RequestOutcomeNotice | LicenseAlert | Digest;
  /** Later updates (alerts). */
  updates: LicenseAlert[];
}

type Call = 'deliverDm' | 'updateCard' | 'postAlert' | 'updateAlert' | 'postDigest' | 'findPosted';
/** Return 'after' to throw after the effect (a crash after posting), or an Error to throw before. */
export type PortFault = (call: Call) => 'after' | Error | undefined;

export class FakePorts implements NotifyPorts {
  posted: Posted[] = [];
  cardUpdates: Array<{ card: CardRef; notice: RequestOutcomeNotice }> = [];
  calls: Call[] = [];
  faults: PortFault[] = [];
  private seq = 0;

  constructor(private readonly clock: FakeClock) {}

  private check(call: Call): boolean {
    this.calls.push(call);
    for (const f of this.faults) {
      const r = f(call);
      if (r instanceof Error) throw r;
      if (r === 'after') return true;
    }
    return false;
  }

  private ts(): string {
    return `${Math.floor(this.clock.now() / 1000)}.${String(++this.seq).padStart(6, '0')}`;
  }

  async deliverDm(userId: string, notice: RequestOutcomeNotice, opts: { key: string }): Promise<PostedRef> {
    const after = this.check('deliverDm');
    const p: Posted = {
      kind: 'dm',
      channel: `D-${userId}`,
      ts: this.ts(),
      key: opts.key,
      userId,
      body: notice,
      updates: [],
    };
    this.posted.push(p);
    if (after) throw new Error('simulated crash after the DM');
    return { channel: p.channel, ts: p.ts };
  }

  async updateCard(card: CardRef, notice: RequestOutcomeNotice): Promise<void> {
    const after = this.check('updateCard');
    this.cardUpdates.push({ card, notice });
    if (after) throw new Error('simulated crash after the card update');
  }

  async postAlert(
    channel: string,
    alert: LicenseAlert,
    opts: { key: string; threadTs?: string },
  ): Promise<PostedRef> {
    const after = this.check('postAlert');
    const p: Posted = {
      kind: 'alert',
      channel,
      ts: this.ts(),
      key: opts.key,
      ...(opts.threadTs ? { threadTs: opts.threadTs } : {}),
      body: alert,
      updates: [],
    };
    this.posted.push(p);
    if (after) throw new Error('simulated crash after the alert');
    return { channel, ts: p.ts };
  }

  async updateAlert(channel: string, ts: string, alert: LicenseAlert): Promise<void> {
    const after = this.check('updateAlert');
    const m = this.posted.find((x) => x.channel === channel && x.ts === ts);
    if (!m) throw new Error(`update of unknown message ${ts}`);
    m.updates.push(alert);
    if (after) throw new Error('simulated crash after the update');
  }

  async postDigest(channel: string, digest: Digest, opts: { key: string }): Promise<PostedRef> {
    const after = this.check('postDigest');
    const p: Posted = { kind: 'digest', channel, ts: this.ts(), key: opts.key, body: digest, updates: [] };
    this.posted.push(p);
    if (after) throw new Error('simulated crash after the digest');
    return { channel, ts: p.ts };
  }

  async findPosted(
    where: { channel?: string; userId?: string; threadTs?: string },
    key: string,
    sinceMs: number,
  ): Promise<PostedRef | undefined> {
    this.check('findPosted');
    const m = this.posted.find(
      (x) =>
        x.key === key &&
        Number(x.ts) * 1000 >= sinceMs - 1000 &&
        (where.userId ? x.userId === where.userId : x.channel === where.channel) &&
        (where.threadTs === undefined || x.threadTs === where.threadTs),
    );
    return m ? { channel: m.channel, ts: m.ts } : undefined;
  }

  of(kind: Posted['kind']): Posted[] {
    return this.posted.filter((p) => p.kind === kind);
  }

  duplicateKeys(): string[] {
    const seen = new Map<string, number>();
    for (const m of this.posted) seen.set(m.key, (seen.get(m.key) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
  }
}

export interface NotifyHarness {
  clock: FakeClock;
  emu: EmulatorHandle;
  store: Store;
  api: ReturnType<typeof createApi>;
  ports: FakePorts;
  events: NotifyEvent[];
  creds: WorkspaceCredentials;
  notifier(overrides?: Partial<NotifierOptions>): Notifier;
  /** Advance the virtual clock. */
  advance(ms: number): void;
  /** Count of emulator requests whose key contains `fragment`. */
  calls(fragment: string): number;
  close(): Promise<void>;
}

export async function startNotifyHarness(
  opts: { store?: Store; start?: number; seedJobs?: boolean } = {},
): Promise<NotifyHarness> {
  const clock = new FakeClock(opts.start);
  const emu = await startEmulator({ seed: false, now: () => clock.now() });
  emu.addWatermarkingAccount({
    accountId: 'acme-wm',
    accessKey: 'AKtestnotify000000000000001',
    siteIds: [SITE, SITE2],
  });
  emu.addServiceAccount({
    accountId: SVC_ACCOUNT,
    accountSeq: '777',
    secretKey: 'notify-test-secret-0123456789abcdef',
    sites: [
      { siteId: SITE, name: 'Acme Broadcast' },
      { siteId: SITE2, name: 'Culture Docs' },
    ],
  });
  const api = createApi({ clock: () => clock.now(), sleep: (ms) => clock.sleep(ms), random: () => 0.5 });
  const store =
    opts.store ??
    (await createStore({
      url: 'memory://',
      encryptionKey: ENCRYPTION_KEY,
      namespace: `n-${Math.random().toString(36).slice(2)}`,
    }));
  const ports = new FakePorts(clock);
  const events: NotifyEvent[] = [];
  const creds: WorkspaceCredentials = {
    siteIds: [SITE, SITE2],
    defaultSiteId: SITE,
    watermarking: { accountId: 'acme-wm', accessKey: 'AKtestnotify000000000000001', baseUrl: emu.wmBaseUrl },
    service: {
      accountId: SVC_ACCOUNT,
      accountSeq: '777',
      secretKey: 'notify-test-secret-0123456789abcdef',
      baseUrl: emu.serviceBaseUrl,
    },
  };
  const notifiers: Notifier[] = [];
  return {
    clock,
    emu,
    store,
    api,
    ports,
    events,
    creds,
    notifier(overrides = {}) {
      const n = createNotifier({
        store,
        api,
        credentials: async () => creds,
        ports: () => ports,
        pausedReason,
        holderId: 'holder-A',
        clock,
        intervalMs: 60_000,
        tickMs: 15_000,
        events: (e) => events.push(e),
        ...overrides,
      });
      notifiers.push(n);
      return n;
    },
    advance(ms) {
      clock.advance(ms);
    },
    calls(fragment) {
      let n = 0;
      for (const [k, v] of Object.entries(emu.requestCounts())) if (k.includes(fragment)) n += v;
      return n;
    },
    async close() {
      for (const n of notifiers) await n.stop();
      await api.close();
      await emu.close();
      if (!opts.store) await store.close();
    },
  };
}
