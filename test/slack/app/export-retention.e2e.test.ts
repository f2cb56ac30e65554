/**
 * The bot's own exports are deleted from Slack after EXPORT_RETENTION_DAYS: an Export CSV of DRM
 * data (end-user ids) is uploaded to the requester's DM, remembered, and deleted with files.delete
 * by the notify runtime's sweep once it is older than the retention (a virtual clock moves the
 * days); 0 keeps the files. Real app, emulator and fake Slack through the harness.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EXPORT_SWEEP_MS } from '../../../src/slack/export-sweeper.js';
import type { TestBot } from '../../harness/index.js';
import { type NotifySetup, setupNotify } from '../../support/notify.js';
import { button, drm, lastSeq } from '../../support/slack.js';

let s: NotifySetup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const DAY = 86_400_000;

/** The admin exports `/drm users` as CSV; returns the uploaded file's id. */
async function exportUsers(b: TestBot): Promise<string> {
  const table = await drm(b, 'users', b.ws.admin);
  const btn = button(table.blocks, (x) => x.action_id === 'svc_data_export');
  const seq = lastSeq(b);
  await b.action({ actionId: btn.action_id, value: btn.value!, user: b.ws.admin });
  const done = await b.fake.waitFor(
    (c) => c.method === 'files.completeUploadExternal' && c.seq > seq && c.ok,
    15_000,
  );
  const id = (done.args.files as Array<{ id: string }>)[0]!.id;
  // The export's last step (after the upload was recorded): the DM's progress message says done.
  await b.fake.waitFor(
    (c) => c.method === 'chat.update' && c.seq > done.seq && JSON.stringify(c.args).includes('Exported'),
    15_000,
  );
  expect(b.fake.file(id)).toBeDefined();
  return id;
}

describe("the bot's exports", () => {
  it('are deleted after EXPORT_RETENTION_DAYS, once, by the hourly sweep', async () => {
    s = await setupNotify({ bot: { env: { EXPORT_RETENTION_DAYS: '7' } } });
    const b = s.bot;
    const id = await exportUsers(b);

    s.clock.advance(6 * DAY);
    expect(await s.runtime.sweepExports()).toEqual({ deleted: 0, failed: 0 });
    expect(b.fake.file(id)).toBeDefined();

    // Past the retention: the runtime's own hourly sweep deletes it.
    s.clock.advance(DAY);
    const end = Date.now() + 8000;
    while (b.fake.file(id) && Date.now() < end) {
      s.clock.advance(EXPORT_SWEEP_MS);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(b.fake.file(id)).toBeUndefined();
    const deletes = b.fake.calls('files.delete');
    expect(deletes.map((c) => c.args.file)).toEqual([id]);
    expect(deletes[0]!.ok).toBe(true);

    // Nothing left to do: no second call.
    s.clock.advance(EXPORT_SWEEP_MS);
    expect(await s.runtime.sweepExports()).toEqual({ deleted: 0, failed: 0 });
    expect(b.fake.calls('files.delete')).toHaveLength(1);
  });

  it('a failed delete (rate limit) is retried at the next sweep; 0 keeps the files', async () => {
    s = await setupNotify({ bot: { env: { EXPORT_RETENTION_DAYS: '1' } } });
    const b = s.bot;
    const id = await exportUsers(b);
    b.fake.fail('files.delete', { error: 'ratelimited', status: 429, retryAfterSeconds: 1, times: 1 });
    // The runtime's hourly sweep may run first (the clock passes its timer): sweeps never overlap.
    s.clock.advance(2 * DAY);
    await s.runtime.sweepExports();
    await s.runtime.sweepExports();
    expect(b.fake.file(id)).toBeUndefined();
    expect(b.fake.calls('files.delete').map((c) => [c.args.file, c.ok])).toEqual([
      [id, false],
      [id, true],
    ]);
    await s.close();

    s = await setupNotify({ bot: { env: { EXPORT_RETENTION_DAYS: '0' } } });
    const kept = await exportUsers(s.bot);
    s.clock.advance(400 * DAY);
    expect(await s.runtime.sweepExports()).toEqual({ deleted: 0, failed: 0 });
    expect(s.bot.fake.file(kept)).toBeDefined();
    expect(s.bot.fake.calls('files.delete')).toHaveLength(0);
  });
});
