/**
 * The process entry point, run as a real child process (tsx): configuration errors exit 1 with a
 * plain message, a configured bot serves /healthz, and SIGTERM stops it with exit code 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../../dev/fakeslack/index.js';

function run(env: Record<string, string>): {
  child: ChildProcess;
  out: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, exit };
}

describe('main', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await FakeSlack.start();
    fake.addWorkspace({ teamId: 'T0MAIN', botToken: 'xoxb-1-main' });
  });
  afterAll(async () => {
    await fake.close();
  });

  it('refuses to start on a configuration error: exit 1, names the variable, no stack trace', async () => {
    const p = run({ SLACK_BOT_TOKEN: 'xoxb-1-main', SLACK_SIGNING_SECRET: 'secret-value' });
    expect(await p.exit).toBe(1);
    expect(p.out()).toContain('ENCRYPTION_KEY');
    expect(p.out()).not.toMatch(/\n\s+at /);
    expect(p.out()).not.toContain('secret-value');
  });

  it('starts, serves /healthz and stops with exit 0 on SIGTERM', async () => {
    const p = run({
      SLACK_BOT_TOKEN: 'xoxb-1-main',
      SLACK_SIGNING_SECRET: randomBytes(8).toString('hex'),
      SLACK_API_URL: fake.apiUrl,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      STORE_URL: 'memory://',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    const deadline = Date.now() + 15_000;
    let port: number | undefined;
    while (!port && Date.now() < deadline) {
      const m = /"port":(\d+)[^\n]*Slack app listening/.exec(p.out());
      if (m) port = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(port, p.out()).toBeDefined();
    const r = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(r.status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    expect(p.out()).toContain('"msg":"stopped"');
    expect(p.out()).not.toContain('xoxb-1-main');
  });
});
