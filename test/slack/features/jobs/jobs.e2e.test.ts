/**
 * /dwm jobs and /dwm job end to end: signed commands and button clicks against the real app, the
 * seeded emulator behind, assertions on what reached the fake Slack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { countLines } from '../../../support/lines.js';
import { blocksText, buttons, lastSeq, nextCall, replyBlocks } from '../../../support/slack.js';

describe('/dwm jobs and /dwm job', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('lists jobs with status, content, times, Details and the total; Next replaces in place', async () => {
    const seq = lastSeq(bot);
    await bot.command('jobs');
    const r = await nextCall(bot, 'response_url', seq);
    expect(r.args.response_type).toBe('ephemeral');
    const text = blocksText(replyBlocks(r));
    expect(text).toMatch(/Jobs on DEMO: \d+ total/);
    expect(text).toContain('<!date^');
    const btns = buttons(replyBlocks(r));
    const details = btns.filter((b) => b.action_id === 'wm_job_details');
    expect(details.length).toBeGreaterThan(0);
    expect(details.length).toBeLessThanOrEqual(10);
    const next = btns.find((b) => b.action_id === 'wm_jobs_page_next');
    expect(next).toBeDefined();

    const seq2 = lastSeq(bot);
    await bot.action({ actionId: next!.action_id, value: next!.value! });
    const r2 = await nextCall(bot, 'response_url', seq2);
    expect(r2.args.replace_original).toBe(true);
    expect(blocksText(replyBlocks(r2))).toContain('page 2 of');
    expect(buttons(replyBlocks(r2)).some((b) => b.action_id === 'wm_jobs_page_prev')).toBe(true);
  });

  it('filters by several statuses (names and codes) and shows them', async () => {
    const seq = lastSeq(bot);
    await bot.command('jobs status:error,DM000');
    const r = await nextCall(bot, 'response_url', seq);
    const text = blocksText(replyBlocks(r));
    expect(text).toContain('ERROR');
    expect(text).toContain('READY');
    expect(text).not.toContain(':large_green_circle: COMPLETED ·');
  });

  it('a bad date is explained with what to write', async () => {
    const seq = lastSeq(bot);
    await bot.command('jobs from:2026-13-45');
    const r = await nextCall(bot, 'response_url', seq);
    expect(String(r.args.text)).toContain('not a real calendar date');
  });

  it('job card: counts, failures first with their code, Export CSV sends the file to the DM', async () => {
    const emu = bot.emulator!;
    const names = Array.from({ length: 45 }, (_, i) => `card-test-${i}`);
    const jobId = emu.createJob(
      'DEMO',
      'CARD-TEST-001',
      names.map((n) => ({ recipient: n })),
    );
    const job = await (async () => {
      const seq = lastSeq(bot);
      await bot.command(`job ${jobId}`);
      return nextCall(bot, 'response_url', seq);
    })();
    const initial = blocksText(replyBlocks(job));
    expect(initial).toContain(`Job ${jobId}`);
    expect(initial).toContain('READY: 45');

    // Fail two tasks (one by TK005, one by a non-zero pre-embedder code), finish the rest.
    const dwmIds: number[] = [];
    const c = await bot.deps.api
      .watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl })
      .getJobTasks('DEMO', jobId);
    for (const t of c.items) dwmIds.push(t.dwmId);
    emu.finishJob('DEMO', jobId, { failDwmIds: [dwmIds[40]!, dwmIds[41]!], cliErrorCode: 'E-417' });

    const refresh = buttons(replyBlocks(job)).find((b) => b.action_id === 'wm_job_refresh')!;
    expect(refresh.style).toBe('primary');
    const seq2 = lastSeq(bot);
    await bot.action({ actionId: refresh.action_id, value: refresh.value! });
    const r2 = await nextCall(bot, 'response_url', seq2);
    expect(r2.args.replace_original).toBe(true);
    const text = blocksText(replyBlocks(r2));
    expect(text).toContain('FAIL: 2');
    expect(text).toContain('E-417');
    // Failures first: the first task line is a failure.
    const firstTask = text.indexOf('DWM ID');
    expect(text.slice(Math.max(0, firstTask - 200), firstTask)).toContain('FAIL');
    expect(text).toMatch(/and 15 more tasks? not shown/);
    expect(replyBlocks(r2).length).toBeLessThanOrEqual(50);

    const exp = buttons(replyBlocks(r2)).find((b) => b.action_id === 'wm_job_export')!;
    const seq3 = lastSeq(bot);
    await bot.action({ actionId: exp.action_id, value: exp.value! });
    const done = await bot.fake.waitFor(
      (x) => x.seq > seq3 && x.method === 'response_url' && String(x.args.text).includes('CSV of job'),
      10_000,
    );
    expect(String(done.args.text)).toContain('45 tasks');
    const upload = bot.fake.calls('files.completeUploadExternal').filter((x) => x.seq > seq3 && x.ok);
    expect(upload).toHaveLength(1);
    // The one file name of a job's task export (the watched job card's Export CSV uses it too).
    const named = bot.fake.calls('files.getUploadURLExternal').filter((x) => x.seq > seq3 && x.ok);
    expect(named.map((x) => x.args.filename)).toEqual([`job-DEMO-${jobId}-tasks.csv`]);
    const fileId = String(((upload[0]!.args.files as Array<{ id: string }>) ?? [])[0]?.id);
    const csv = bot.fake.file(fileId)!.data.toString('utf8');
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(46);
    expect(csv.split('\r\n')[1]).toContain('TK005');
    // Delivered in the DM, not the channel.
    expect(bot.fake.messages(bot.ws.member).some((m) => m.files?.includes(fileId))).toBe(true);
    expect(bot.fake.messages(bot.ws.channel).some((m) => m.files?.includes(fileId))).toBe(false);
  });

  it('an unknown job id is said in words (not as a failure), the service code last', async () => {
    const seq = lastSeq(bot);
    await bot.command('job 99999999');
    const r = await nextCall(bot, 'response_url', seq);
    expect(String(r.args.text)).toMatch(
      /^Job 99999999 isn't on site [A-Z0-9]+\. \/dwm jobs lists recent jobs\.$/,
    );
    const blocks = r.args.blocks as Array<{ type: string }>;
    expect(countLines({ blocks } as never)).toBeLessThanOrEqual(3);
    expect(JSON.stringify(blocks.slice(0, -1))).not.toMatch(/E3001|failed/);
    expect(blocks.at(-1)?.type).toBe('context');
    expect(JSON.stringify(blocks.at(-1))).toContain('E3001');
  });

  it('a button value naming another workspace is refused', async () => {
    const seq = lastSeq(bot);
    await bot.action({
      actionId: 'wm_job_details',
      value: JSON.stringify({ w: 'T0OTHERWS', s: 'DEMO', j: 1 }),
    });
    const r = await nextCall(bot, 'response_url', seq);
    expect(String(r.args.text)).toContain('another workspace');
  });

  it('a site that is not configured is refused with the configured ones', async () => {
    const seq = lastSeq(bot);
    await bot.command('jobs site:ZZ99');
    const r = await nextCall(bot, 'response_url', seq);
    expect(blocksText(replyBlocks(r))).toContain('DEMO');
    expect(String(r.args.text)).toContain('ZZ99');
  });
});
