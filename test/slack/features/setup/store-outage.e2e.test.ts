/**
 * The setup form when the store fails while saving (the signed app, the emulator, the fake Slack):
 * a failing audit write after the credentials were saved does not report "Nothing was saved", and
 * a failing save is said as the storage being unavailable (saving again is safe), not as an
 * unexpected error of the bot's with a reference to report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../../src/store/errors.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { setupFormValues } from '../../../support/slack.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'none' });
});
afterAll(async () => {
  await bot?.close();
});

/** Submit the setup form (opened fresh) and return the view it ends on. */
async function submitSetup(): Promise<string> {
  const admin = bot.ws.admin;
  const seq0 = bot.fake.lastSeq();
  await bot.command('setup', { user: admin });
  await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq0, 5000);
  const seq = bot.fake.lastSeq();
  const r = await bot.viewSubmission({ user: admin, values: setupFormValues(bot) });
  expect(r.status).toBe(200);
  const done = await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq, 8000);
  return JSON.stringify(done.args);
}

describe('setup form, the store failing while saving', () => {
  it('the save itself fails: "storage is unavailable", saving again is safe; no "unexpected" reference', async () => {
    const creds = bot.deps.store.credentials;
    const put = creds.put.bind(creds);
    creds.put = async () => {
      throw new StoreUnavailableError('set', 1000);
    };
    let view: string;
    try {
      view = await submitSetup();
    } finally {
      creds.put = put;
    }
    expect(view).toContain("The bot's storage is unavailable right now");
    expect(view).toContain('saving again is safe');
    expect(view).not.toMatch(/unexpected|reference/);
    expect(await bot.store.credentials.get(bot.ws.teamId)).toBeUndefined();
  });

  it('the audit write after the save fails: the view says saved, and the credentials are saved', async () => {
    const log = bot.deps.store.audit;
    const append = log.append.bind(log);
    log.append = async () => {
      throw new StoreUnavailableError('set', 1000);
    };
    let view: string;
    try {
      view = await submitSetup();
    } finally {
      log.append = append;
    }
    expect(view).toContain('Verified and saved');
    expect(view).not.toContain('Nothing was saved');
    expect((await bot.store.credentials.get(bot.ws.teamId))?.credentials.siteIds).toEqual(['DEMO']);
  });
});
