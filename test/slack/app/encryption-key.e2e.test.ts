/**
 * A wrong ENCRYPTION_KEY: stored credentials that no configured key opens are reported by the key
 * check (what /readyz and start-up use), a member's command says exactly that (not "something
 * unexpected"), and an admin can still open setup to enter the credentials again.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEncryptionKeys } from '../../../src/ops/key-check.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { startTestBot, type TestBot } from '../../harness/index.js';

describe('credentials encrypted with another key', () => {
  let bot: TestBot;
  let other: Store;
  beforeAll(async () => {
    bot = await startTestBot({ distribution: 'oauth', store: 'sqlite', credentials: 'store' });
    // Another deployment's key wrote this workspace's credentials (a restored backup, a rotated key).
    other = await createStore({
      url: bot.config.storeUrl,
      namespace: bot.storeNamespace,
      encryptionKey: randomBytes(32).toString('base64'),
    });
    const saved = await bot.store.credentials.get(bot.ws.teamId);
    await other.credentials.put(bot.ws.teamId, saved!);
  });
  afterAll(async () => {
    await other?.close();
    await bot?.close();
  });

  it('the key check names the unreadable record by key id (readiness false)', async () => {
    const r = await checkEncryptionKeys(bot.store);
    expect(r.ok).toBe(false);
    expect(r.unreadable).toBe(1);
    expect(r.detail).toContain('ENCRYPTION_KEY');
    expect(r.detail).toContain(r.kids[0]);
  });

  it('a command says the credentials cannot be read and what to do', async () => {
    const seq = bot.fake.lastSeq();
    await bot.command('jobs', { user: bot.ws.member });
    const reply = await bot.fake.waitFor((c) => c.seq > seq && c.method === 'response_url');
    const text = JSON.stringify(reply.args);
    expect(text).toContain('cannot be read');
    expect(text).toContain('setup');
    expect(text).not.toContain('unexpected');
  });

  it('an admin can open setup (blank) and the saved record is replaced', async () => {
    const seq = bot.fake.lastSeq();
    await bot.command('setup', { user: bot.ws.admin });
    const opened = await bot.fake.waitFor(
      (c) => c.seq > seq && (c.method === 'views.open' || c.method === 'views.update'),
    );
    expect(opened.ok).toBe(true);
    // Saving credentials with the current key makes everything readable again.
    await other.credentials.delete(bot.ws.teamId);
    expect((await checkEncryptionKeys(bot.store)).ok).toBe(true);
  });
});
