/**
 * The restore drill of docs/operations.md, run against the real bot: back up the store with the
 * store tool, wipe it, restore the backup, and the bot serves the same watches and the same
 * (still encrypted, same ENCRYPTION_KEY) installation and service credentials.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../../src/slack/features/index.js';
import { createWatchRuntime, type WatchRuntime } from '../../../src/slack/watch-runtime.js';
import { openStoreEndpoint } from '../../../src/store/index.js';
import { runStoreTool } from '../../../src/store-tool.js';
import { startTestBot, type TestBot } from '../../harness/index.js';

const dir = mkdtempSync(join(tmpdir(), 'drm-drill-'));
let bot: TestBot | undefined;
let runtime: WatchRuntime | undefined;
afterAll(async () => {
  await runtime?.stop();
  await bot?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function reply(b: TestBot, text: string, user: string): Promise<string> {
  const seq = b.fake.lastSeq();
  await b.command(text, { user });
  const r = await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
  return JSON.stringify(r.args);
}

describe('restore drill', () => {
  it('back up, wipe, restore: the bot serves the same watches and credentials', async () => {
    bot = await startTestBot({
      distribution: 'oauth',
      credentials: 'store',
      storeUrl: `sqlite://${join(dir, 'bot.sqlite')}`,
    });
    const b = bot;
    runtime = createWatchRuntime(b.deps, b.handle.app, {
      features: FEATURES,
      holderId: 'drill',
      watcher: { jitter: 0 },
    });
    const site = b.emulator!.demo.defaultSiteId;
    const ws = b.ws.teamId;
    expect(await reply(b, `watch site:${site} mode:failures`, b.ws.admin)).toContain('is now watching jobs');
    const watchesBefore = await reply(b, 'watches', b.ws.admin);
    expect(watchesBefore).toContain(site);
    const installBefore = await b.store.installations.get(ws);
    const credsBefore = await b.store.credentials.get(ws);
    expect(credsBefore).toBeDefined();

    // 1. Back up (the bot keeps running).
    const file = join(dir, 'backup.jsonl');
    const backup = await runStoreTool({
      command: 'backup',
      from: b.config.storeUrl,
      to: `file:${file}`,
      force: false,
      namespace: b.storeNamespace,
    });
    expect(backup.summary.installations?.keys).toBe(1);
    expect(backup.summary.credentials?.keys).toBe(1);

    // 2. Wipe: the store loses everything.
    const ep = await openStoreEndpoint(b.config.storeUrl, { namespace: b.storeNamespace });
    await ep.clear();
    await ep.close();
    expect(await b.store.installations.get(ws)).toBeUndefined();
    expect(await b.store.credentials.get(ws)).toBeUndefined();
    expect(await runtime.watcher.subscriptions.list(ws)).toEqual([]);

    // 3. Restore.
    await runStoreTool({
      command: 'restore',
      from: `file:${file}`,
      to: b.config.storeUrl,
      force: false,
      namespace: b.storeNamespace,
    });

    // 4. The bot serves the same watches and credentials.
    expect(await b.store.installations.get(ws)).toEqual(installBefore);
    expect(await b.store.credentials.get(ws)).toEqual(credsBefore);
    expect(await reply(b, 'watches', b.ws.admin)).toBe(watchesBefore);
    const jobs = await reply(b, 'jobs', b.ws.member);
    expect(jobs).not.toContain('setup');
    expect(jobs).not.toMatch(/cannot be read|not set up/);
  });
});
