import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../harness/index.js';

describe('Slack app over HTTP (real app, fake Slack)', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot();
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('acks a correctly signed slash command with 200 and answers through the response_url', async () => {
    const r = await bot.command('help');
    expect(r.status).toBe(200);
    const resp = await bot.fake.waitFor(
      (c) => c.method === 'response_url' || c.method === 'chat.postEphemeral',
    );
    expect(resp.ok).toBe(true);
  });

  it.each(['bad', 'missing', 'stale', 'future'] as const)('refuses a %s signature with 401', async (mode) => {
    const before = bot.fake.calls().length;
    const r = await bot.command('help', { signature: mode });
    expect(r.status).toBe(401);
    // Nothing was done for the refused request.
    await new Promise((res) => setTimeout(res, 100));
    expect(
      bot.fake
        .calls()
        .slice(before)
        .filter((c) => c.method !== 'auth.test'),
    ).toEqual([]);
  });

  it('answers url_verification with the challenge', async () => {
    const r = await bot.urlVerification('challenge-123');
    expect(r.status).toBe(200);
    expect(r.text).toContain('challenge-123');
  });

  it('serves /healthz with the release version of package.json', async () => {
    const r = await bot.get('/healthz');
    expect(r.status).toBe(200);
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(r.json).toEqual({ status: 'ok', version });
  });

  it('serves /readyz with the store and Slack checks, and caches auth.test', async () => {
    const before = bot.fake.calls('auth.test').length;
    const r = await bot.get('/readyz');
    expect(r.status).toBe(200);
    const body = r.json as { status: string; checks: { name: string; ok: boolean }[] };
    expect(body.status).toBe('ready');
    expect(body.checks.map((c) => c.name).sort()).toEqual(['slack', 'store']);
    await bot.get('/readyz');
    expect(bot.fake.calls('auth.test').length).toBe(before + 1);
  });

  it('logs carry neither the signing secret nor the bot token after the session', () => {
    expect(bot.logs.lines().length).toBeGreaterThan(0);
    expect(bot.logs.leaked([bot.signingSecret, bot.ws.botToken])).toEqual([]);
    expect(bot.logs.leaked(bot.secrets())).toEqual([]);
  });

  it('serves /metrics in Prometheus format, with the counters moving as commands run', async () => {
    const sample = (text: string, name: string, labels: string): number => {
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
      return line ? Number(line.trim().split(/\s+/).pop()) : 0;
    };
    const before = await bot.get('/metrics');
    expect(before.status).toBe(200);
    expect(before.text).toContain('# TYPE drmchatops_commands_total counter');
    const helpBefore = sample(before.text, 'drmchatops_commands_total', 'command="/dwm",outcome="help"');
    const jobsBefore = sample(before.text, 'drmchatops_commands_total', 'command="/dwm jobs",outcome="ok"');
    const seq = bot.fake.lastSeq();
    await bot.command('help');
    await bot.command('jobs');
    await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq && c.ok, 10_000);
    await bot.fake.waitFor(
      (c) => c.method === 'response_url' && c.seq > seq && c.ok && JSON.stringify(c.args).includes('DEMO'),
      10_000,
    );
    const after = await bot.get('/metrics');
    expect(sample(after.text, 'drmchatops_commands_total', 'command="/dwm",outcome="help"')).toBe(
      helpBefore + 1,
    );
    expect(sample(after.text, 'drmchatops_commands_total', 'command="/dwm jobs",outcome="ok"')).toBe(
      jobsBefore + 1,
    );
    // The service call behind /dwm jobs was timed.
    expect(
      sample(after.text, 'drmchatops_service_call_seconds_count', 'endpoint="wm.searchJobs"'),
    ).toBeGreaterThanOrEqual(1);
  });
});

describe('/readyz when Slack refuses the token', () => {
  it('answers 503 naming the failing check, without the token', async () => {
    const bot = await startTestBot({ emulator: false });
    try {
      bot.fake.revokeToken(bot.ws.botToken);
      const r = await bot.get('/readyz');
      expect(r.status).toBe(503);
      const body = r.json as { checks: { name: string; ok: boolean; detail?: string }[] };
      expect(body.checks.find((c) => c.name === 'slack')).toMatchObject({ ok: false });
      expect(body.checks.find((c) => c.name === 'slack')?.detail).toMatch(
        /^Slack refused SLACK_BOT_TOKEN \(invalid_auth\): check that it is/,
      );
      expect(r.text).not.toContain(bot.ws.botToken);
    } finally {
      await bot.close();
    }
  });
});
