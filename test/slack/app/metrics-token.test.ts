import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../harness/index.js';

const TOKEN = 'metrics-token-0123456789abcdef';

describe('METRICS_TOKEN protects /readyz and /metrics', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ emulator: false, env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it.each(['/readyz', '/metrics'])(
    '%s: 401 without the token or with a wrong one, served with it',
    async (path) => {
      expect((await bot.get(path)).status).toBe(401);
      expect((await bot.get(path, { authorization: 'Bearer wrong-token-0123456789abcdef' })).status).toBe(
        401,
      );
      const ok = await bot.get(path, { authorization: `Bearer ${TOKEN}` });
      expect([200, 503]).toContain(ok.status);
      expect(ok.text.length).toBeGreaterThan(0);
    },
  );

  it('/healthz stays open (container health checks)', async () => {
    expect((await bot.get('/healthz')).status).toBe(200);
  });

  it('the token never reaches the log', () => {
    expect(bot.logs.leaked([TOKEN])).toEqual([]);
  });
});
