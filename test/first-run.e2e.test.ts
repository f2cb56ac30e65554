/**
 * README's path "Try it in your own workspace", Socket Mode, driven end to end with the BUILT bot
 * (dist/src/main.js, plain node, as `npm start` runs it) and nothing else than what README says to
 * set: its minimum variables for Socket Mode (MINIMUM_VARIABLES.socket, which README names) and
 * the `.env` lines `npm run emulator` prints (read out of its banner). Slack is played on loopback
 * by the fake Web API (apps.connections.open, auth.test, views.*, chat.*) and a stand-in of
 * Slack's Socket Mode server (a WebSocket that delivers envelopes and takes acks). The only other
 * lines of the .env point those at loopback (SLACK_API_URL, PORT=0, HOST=127.0.0.1): a real
 * workspace needs none of them.
 *
 * From the first command to a job card: `/dwm setup` opens the form (the service URLs shown, not
 * asked), the admin submits the credentials the emulator printed, they verify and save; `/dwm
 * watch site:…` in the channel; a job finishes at the service; its card is posted in the channel.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorBanner, envLinesOf } from '../dev/emulator/banner.js';
import { type EmulatorHandle, startEmulator } from '../dev/emulator/index.js';
import { type FakeCall, FakeSlack } from '../dev/fakeslack/index.js';
import { MINIMUM_VARIABLES } from '../src/config.js';
import { type FakeSocketMode, startFakeSocketMode } from './harness/socket-mode.js';
import { buildIntoTemp } from './support/build.js';

const repo = resolve(new URL('..', import.meta.url).pathname);
const TEAM = 'T0FIRST';
const ADMIN = 'U0FIRSTADM';
const CHANNEL = 'C0FIRSTCH';
const BOT_TOKEN = `xoxb-first-${randomBytes(6).toString('hex')}`;
const APP_TOKEN = `xapp-1-A0FAKEAPP-${randomBytes(6).toString('hex')}`;
/** Loopback plumbing of the test, not README's: where "Slack" is, and where the health port binds. */
const PLUMBING = ['SLACK_API_URL', 'PORT', 'HOST'];

let out: string;
let runDir: string;
let fake: FakeSlack;
let sm: FakeSocketMode;
let emu: EmulatorHandle;
let child: ReturnType<typeof spawn> | undefined;
let log = '';

beforeAll(async () => {
  out = buildIntoTemp('drm-first-');
  runDir = mkdtempSync(join(tmpdir(), 'drm-first-run-'));
  fake = await FakeSlack.start();
  fake.addWorkspace({
    teamId: TEAM,
    botToken: BOT_TOKEN,
    users: [{ id: ADMIN, name: 'ada', isAdmin: true, tz: 'UTC' }],
    channels: [{ id: CHANNEL, name: 'releases' }],
  });
  sm = await startFakeSocketMode();
  fake.setSocketModeUrl(sm.url);
  emu = await startEmulator();
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await sm?.close();
  await emu?.close();
  await fake?.close();
  for (const d of [out, runDir]) if (d) rmSync(d, { recursive: true, force: true });
});

async function until<T>(
  what: string,
  f: () => T | undefined | Promise<T | undefined>,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${log.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function slash(text: string) {
  return {
    token: 'deprecated',
    team_id: TEAM,
    team_domain: 'first',
    channel_id: CHANNEL,
    channel_name: 'releases',
    user_id: ADMIN,
    user_name: 'ada',
    command: '/dwm',
    text,
    api_app_id: 'A0FAKEAPP',
    is_enterprise_install: 'false',
    response_url: fake.responseUrl(TEAM, { channel: CHANNEL, userId: ADMIN }),
    trigger_id: fake.issueTrigger(TEAM, ADMIN),
  };
}

const since = (seq: number, p: (c: FakeCall) => boolean) => (c: FakeCall) => c.seq > seq && p(c);
const text = (x: unknown) => JSON.stringify(x ?? {});

describe("README's Socket Mode path, with the built bot", () => {
  it('from .env to a job card in a channel, with only the minimum and the emulator lines', async () => {
    // The .env a newcomer writes: README's minimum, the emulator's printed lines pasted as they are.
    const printed = envLinesOf(emulatorBanner(emu));
    const env: Record<string, string> = {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...printed,
    };
    expect(Object.keys(env).sort()).toEqual([...MINIMUM_VARIABLES.socket].sort());
    const plumbing = { SLACK_API_URL: fake.apiUrl, PORT: '0', HOST: '127.0.0.1' };
    expect(Object.keys(plumbing)).toEqual(PLUMBING);
    writeFileSync(
      join(runDir, '.env'),
      `${Object.entries({ ...env, ...plumbing })
        .map(([k, v]) => `${k}=${v}`)
        .join('\n')}\n`,
    );

    // Start the bot: plain node on the build, from the directory holding .env (store: the default
    // SQLite file under ./data there).
    child = spawn(process.execPath, [join(out, 'src/main.js')], {
      cwd: runDir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onData = (d: Buffer) => {
      log += d.toString();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const exit = new Promise<number | null>((r) => child!.on('exit', (code) => r(code)));
    await sm.waitOpened(1, 30_000);
    await until('Socket Mode connected', () => (/Socket Mode connected/.test(log) ? true : undefined));

    // /dwm setup: the form opens, with the service URLs from .env shown (not asked).
    let seq = fake.lastSeq();
    await sm.send('slash_commands', slash('setup'));
    const opened = await fake.waitFor(
      since(seq, (c) => c.method === 'views.open' && c.ok),
      15_000,
    );
    const form = (opened.args as { view: { blocks: Array<{ block_id?: string; type: string }> } }).view;
    expect(text(form)).toContain(printed.DWM_BASE_URL);
    expect(form.blocks.map((b) => b.block_id)).not.toContain('wm_base_url');
    const view = await until('the setup modal on the fake', () => fake.lastView(ADMIN, 'modal'));

    // The admin types what the emulator printed, and submits.
    const d = emu.demo;
    const v = (value: string) => ({ value: { type: 'plain_text_input', value } });
    seq = fake.lastSeq();
    const ack = await sm.send('interactive', {
      type: 'view_submission',
      team: { id: TEAM, domain: 'first' },
      user: { id: ADMIN, username: 'ada', name: 'ada', team_id: TEAM },
      api_app_id: 'A0FAKEAPP',
      token: 'deprecated',
      trigger_id: fake.issueTrigger(TEAM, ADMIN),
      view: {
        id: view.id,
        team_id: TEAM,
        type: 'modal',
        blocks: view.blocks,
        private_metadata: view.privateMetadata ?? '',
        callback_id: view.callbackId ?? '',
        state: {
          values: {
            site_ids: v(d.siteIds.join(', ')),
            default_site: v(d.defaultSiteId),
            wm_account_id: v(d.watermarking.accountId),
            wm_access_key: v(d.watermarking.accessKey),
            svc_account_id: v(d.service.accountId),
            svc_account_seq: v(String(d.service.accountSeq)),
            svc_secret_key: v(d.service.secretKey),
          },
        },
        hash: view.hash,
        app_id: 'A0FAKEAPP',
        bot_id: 'B0FIRST',
      },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    });
    // Answered at once with "Verifying…" (no inline errors), then updated to the saved result.
    expect(text(ack.payload)).not.toContain('"errors"');
    const saved = await fake.waitFor(
      since(seq, (c) => c.method === 'views.update' && c.ok && text(c.args).includes('Verified and saved')),
      20_000,
    );
    expect(text(saved.args)).toContain(d.defaultSiteId);

    // A job is running at the service; /dwm watch in the channel.
    const contentId = `first-run-${randomBytes(3).toString('hex')}`;
    const jobId = emu.createJob(d.defaultSiteId, contentId, [{ recipient: 'Cinema_One' }]);
    emu.resetRequestCounts();
    seq = fake.lastSeq();
    await sm.send('slash_commands', slash(`watch site:${d.defaultSiteId}`));
    const watching = await fake.waitFor(
      since(seq, (c) => c.method === 'response_url' && c.ok),
      15_000,
    );
    expect(text(watching.args)).not.toContain(':x:');
    expect(text(watching.args)).toContain(CHANNEL);

    // The watcher takes the site on (its first poll lists the jobs), then the job finishes: its
    // card is posted in the channel.
    await until('the first poll of the watched site', () =>
      Object.entries(emu.requestCounts()).some(([k, n]) => /\/job/.test(k) && n > 0) ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 1100));
    emu.finishJob(d.defaultSiteId, jobId);
    const card = await until(
      'the job card in the channel',
      // The card may first show the job as it was when the watch began; it is edited in place.
      () =>
        fake
          .messages(CHANNEL)
          .find((m) => !m.threadTs && text(m.blocks).includes(contentId) && /complete/i.test(text(m.blocks))),
      30_000,
    );
    expect(text(card.blocks)).toContain(String(jobId));
    expect(text(card.blocks)).toMatch(/complete/i);

    child.kill('SIGTERM');
    expect(await exit, log).toBe(0);
    // Nothing went wrong on the way: no unhandled rejection, no error logged.
    expect(log).not.toMatch(/unhandled promise rejection|"level":"(error|fatal)"/);
  }, 120_000);
});

describe('npm run emulator', () => {
  it('prints the .env lines README says to paste (the two service URLs, on loopback)', async () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.emulator).toBe('tsx dev/emulator/main.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', 'dev/emulator/main.ts'], {
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout?.on('data', (d: Buffer) => {
      text += d.toString();
    });
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await until('the banner', () => (text.includes('Press Ctrl+C') ? true : undefined), 30_000);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exit).toBe(0);
    const lines = envLinesOf(text);
    expect(Object.keys(lines).sort()).toEqual(['DWM_BASE_URL', 'SERVICE_API_BASE_URL']);
    for (const url of Object.values(lines)) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/(wm|svc)$/);
  }, 40_000);
});

describe("README's path names what exists", () => {
  it('README names every minimum variable', () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    for (const v of MINIMUM_VARIABLES.socket) expect(readme, v).toContain(`\`${v}`);
  });
});
