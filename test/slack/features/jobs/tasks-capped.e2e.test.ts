/**
 * A task list the service caps (total_count larger than the tasks it holds; the spec shows no
 * paging for that list): the job card, the job status workflow outputs and a watch card say
 * "N of M tasks shown" and no paging parameter is invented. Under the full list the same
 * places say nothing of the kind. Signed commands against the real app, the emulator behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobStatus } from '../../../../src/ops/workflow-steps.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { blocksText, lastSeq, nextCall, replyBlocks } from '../../../support/slack.js';

describe.each([
  ['the whole task list', undefined],
  ['a task list capped at 10', 10],
])('job tasks: %s', (_name, cap) => {
  let bot: TestBot;
  let jobId: number;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
    const emu = bot.emulator!;
    emu.setBehaviours(cap === undefined ? {} : { taskListCap: cap });
    jobId = emu.createJob(
      'DEMO',
      'CAPPED-TASKS-001',
      Array.from({ length: 25 }, (_, i) => ({ recipient: `capped-${i}` })),
    );
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('the job card says how many of the counted tasks it shows', async () => {
    const seq = lastSeq(bot);
    await bot.command(`job ${jobId}`);
    const text = blocksText(replyBlocks(await nextCall(bot, 'response_url', seq)));
    if (cap === undefined) {
      expect(text).not.toContain('tasks shown');
      expect(text).toContain('READY: 25');
    } else {
      expect(text).toContain('10 of 25 tasks shown');
      expect(text).toContain('READY: 10');
    }
  });

  it('the job status workflow outputs say it too', async () => {
    const emu = bot.emulator!;
    const wm = bot.deps.api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
    const r = await jobStatus(wm, 'DEMO', jobId);
    expect(r.outputs.tasks_shown).toBe(cap === undefined ? '' : '10 of 25 tasks shown');
  });
});
