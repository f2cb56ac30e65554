/**
 * Figure 8: the Socket Mode refresh gap. Slack asks every connection to refresh now and then
 * (a `disconnect` message, reason `refresh_requested`); @slack/socket-mode 3.x closes the
 * connection first and opens the next one after its reconnect delay (clientPingTimeout, 5 s by
 * default, times the consecutive failures): there is no way through the SDK to open the new
 * connection before closing the old one. Measured here with the real bot (startBot, Socket Mode)
 * against the fake Slack and the loopback stand-in of Slack's Socket Mode server: the time from
 * the refresh request until the new connection said hello, i.e. while this replica receives
 * nothing (Slack holds or redelivers what comes meanwhile; with several replicas, another
 * replica's connection takes it). Informational: docs/scale-out.md says what it means.
 */
import { randomBytes } from 'node:crypto';
import { FakeSlack } from '../dev/fakeslack/index.js';
import { startBot } from '../src/main.js';
import { startFakeSocketMode } from '../test/harness/socket-mode.js';
import { type BenchContext, fmtMs, median, type Row } from './lib.js';

export async function benchSocketRefresh(ctx: BenchContext): Promise<Row[]> {
  const fake = await FakeSlack.start();
  const token = `xoxb-bench-${randomBytes(4).toString('hex')}`;
  fake.addWorkspace({ teamId: 'T0BENCHSM', botToken: token, botId: 'B0BENCHSM', botUserId: 'U0BENCHSM' });
  const sm = await startFakeSocketMode();
  fake.setSocketModeUrl(sm.url);
  const bot = await startBot({
    watch: false,
    notify: false,
    resumeRegistrations: false,
    env: {
      SLACK_BOT_TOKEN: token,
      SLACK_APP_TOKEN: `xapp-1-A0FAKEAPP-${randomBytes(4).toString('hex')}`,
      SLACK_BOT_ID: 'B0BENCHSM',
      SLACK_BOT_USER_ID: 'U0BENCHSM',
      SLACK_API_URL: fake.apiUrl,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      STORE_URL: 'memory://',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    },
  });
  const gaps: number[] = [];
  try {
    await sm.waitOpened(1, 10_000);
    const rounds = Number(process.env.BENCH_SM_ROUNDS ?? (ctx.quick ? 1 : 3));
    for (let i = 0; i < rounds; i++) {
      // Let the connection settle (hello handled) before asking for the refresh.
      await new Promise((r) => setTimeout(r, 300));
      const before = sm.opened();
      const t0 = performance.now();
      sm.refresh();
      await sm.waitOpened(before + 1, 30_000);
      gaps.push(performance.now() - t0);
    }
  } finally {
    // Let the last connection's hello be handled before stopping.
    await new Promise((r) => setTimeout(r, 1000));
    await bot.shutdown('bench end');
    await sm.close();
    await fake.close();
  }
  const gap = median(gaps);
  return [
    {
      id: 'socket.refresh_gap_ms',
      num: Math.round(gap),
      unit: 'ms',
      figure: '10 Socket Mode refresh gap (no connection)',
      value: fmtMs(gap),
      reference: '-',
      ratio: undefined,
      goal: 'info',
      pass: undefined,
      note: `Socket Mode: after Slack's routine refresh request this replica has no connection for ${fmtMs(gap)} (median of ${gaps.length}); the SDK closes before it reconnects. Run 2+ replicas (compose profile "replicas") so another connection receives meanwhile.`,
    },
  ];
}
