/**
 * A workspace set up with more sites than a select menu lists (Slack: 100 options): every site
 * can still be picked in the forms that offer a site, and the default site is the one selected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../harness/index.js';
import { lastSeq } from '../../support/slack.js';

// 150 site ids; the default is listed after the first 100.
const SITES = Array.from({ length: 150 }, (_, i) => `S${String(i).padStart(3, '0')}`);
const DEFAULT = SITES[120]!;

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({
    credentials: 'env',
    env: { DWM_SITE_IDS: SITES.join(','), DWM_DEFAULT_SITE: DEFAULT },
  });
});
afterAll(async () => {
  await bot?.close();
});

type Option = { value: string };
type Select = {
  type: string;
  options?: Option[];
  option_groups?: Array<{ options: Option[] }>;
  initial_option?: Option;
};

describe('forms with 150 sites', () => {
  it.each([
    ['/dwm watch', '/dwm', 'watch', 'watch_site'],
    ['/drm alerts watch', '/drm', 'alerts watch', 'alerts_site'],
    ['/dwm register', '/dwm', 'register', 'site'],
  ] as const)(
    '%s lists every site (in groups of at most 100) with the default site selected',
    async (_name, command, text, block) => {
      const seq = lastSeq(bot);
      await bot.command(text, { command, user: bot.ws.admin });
      const opened = await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 10_000);
      expect({ ok: opened.ok, error: opened.error }).toEqual({ ok: true, error: undefined });
      const blocks = (opened.args.view as { blocks: Array<{ block_id?: string; element?: Select }> }).blocks;
      const select = blocks.find((b) => b.block_id === block)!.element!;
      const listed = [...(select.options ?? []), ...(select.option_groups ?? []).flatMap((g) => g.options)];
      expect(listed.map((o) => o.value)).toEqual(SITES);
      expect(select.initial_option?.value).toBe(DEFAULT);
    },
  );
});
