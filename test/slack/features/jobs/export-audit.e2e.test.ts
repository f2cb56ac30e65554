/**
 * Export CSV of a job's tasks (recipient names sent to the DM) is audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeValue } from '../../../../src/slack/shared/wm/values.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { lastSeq } from '../../../support/slack.js';

describe('/dwm job Export CSV', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('appends a wm.export audit entry with the site and the job', async () => {
    const jobId = bot.emulator!.createJob('DEMO', 'EXPORT-AUDIT-1', [
      { recipient: 'alice' },
      { recipient: 'bob' },
    ]);
    const seq = lastSeq(bot);
    await bot.action({
      actionId: 'wm_job_export',
      value: encodeValue({ w: bot.ws.teamId, s: 'DEMO', j: jobId }),
    });
    await bot.fake.waitFor(
      (x) => x.seq > seq && x.method === 'response_url' && String(x.args.text).includes('CSV of job'),
      10_000,
    );
    const log = await bot.store.audit.list(bot.ws.teamId, { limit: 10 });
    const entry = log.find((e) => e.action === 'wm.export');
    expect(entry).toMatchObject({ result: 'ok', siteId: 'DEMO', userId: bot.ws.member });
    expect(entry?.detail).toContain(`job ${jobId}`);
  });
});
