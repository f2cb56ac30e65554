/**
 * While an outage of a site's service delays its job notifications (src/watch/outage.ts),
 * `/dwm watches` in a channel watching that site says so; once it is over, it does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outageRepo } from '../../../../src/watch/outage.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { blocksText, lastSeq, nextCall, replyBlocks } from '../../../support/slack.js';

describe('/dwm watches during an outage', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  async function reply(text: string): Promise<string> {
    const seq = lastSeq(bot);
    await bot.command(text);
    return blocksText(replyBlocks(await nextCall(bot, 'response_url', seq)));
  }

  it('shows the delay and its reason while it lasts', async () => {
    const site = bot.emulator!.demo.defaultSiteId;
    await reply(`watch site:${site}`);
    const repo = outageRepo(bot.deps.store);
    const since = Date.UTC(2026, 10, 27, 22, 0);
    await repo.put(bot.ws.teamId, site, {
      v: 1,
      siteId: site,
      sinceMs: since,
      lastFailureMs: since + 60_000,
      reason: 'the watermarking service answers with a server error (HTTP 503)',
      failures: 12,
      told: [bot.ws.channel],
    });
    const during = await reply('watches');
    expect(during).toContain(`Job notifications for site \`${site}\` are delayed since`);
    expect(during).toContain('server error (HTTP 503)');
    await repo.delete(bot.ws.teamId, site);
    expect(await reply('watches')).not.toContain('are delayed');
  });
});
