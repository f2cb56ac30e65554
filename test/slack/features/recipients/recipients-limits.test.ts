/**
 * `/dwm recipients` refuses a search its paging buttons cannot carry (with a message
 * that says the limits), and the list renderer never throws on a long search.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/api/errors.js';
import type { Recipient } from '../../../../src/api/types.js';
import { showRecipients } from '../../../../src/slack/features/recipients/commands.js';
import { recipientListMessage } from '../../../../src/slack/features/recipients/render.js';
import {
  RECIPIENT_SEARCH_LIMITS,
  recipientsPageValue,
} from '../../../../src/slack/features/recipients/values.js';
import { decodeValue } from '../../../../src/slack/shared/wm/values.js';
import { fakeContext, textOf } from '../../../support/fake-context.js';

const item: Recipient = {
  dwmId: 1,
  name: 'alice',
  description: '',
  regTime: { raw: '', epochMs: null },
  updateTime: { raw: '', epochMs: null },
};

function ctxWithSearch() {
  const ctx = fakeContext();
  ctx.deps = { now: () => Date.UTC(2026, 10, 22) } as never;
  const searches: unknown[] = [];
  ctx.clients = async () =>
    ({
      site: (s?: string) => s ?? 'DEMO',
      watermarking: () => ({
        searchRecipients: async (_site: string, q: unknown) => {
          searches.push(q);
          return { items: [item], totalCount: 30 };
        },
      }),
    }) as never;
  return { ctx, searches };
}

describe('/dwm recipients search limits', () => {
  it('a search within the limits pages with its keywords', async () => {
    const { ctx, searches } = ctxWithSearch();
    const keywords = Array.from({ length: RECIPIENT_SEARCH_LIMITS.keywords }, (_, i) => `k${i}`);
    await showRecipients(ctx, { keywords, page: 1 });
    expect(searches).toHaveLength(1);
    const msg = ctx.replies[0]!.msg;
    const next = JSON.stringify(msg.blocks).match(
      /"action_id":"wm_recipients_page_next","value":"((?:[^"\\]|\\.)*)"/,
    );
    const value = JSON.parse(`"${next![1]}"`) as string;
    expect(decodeValue(recipientsPageValue, value)?.k).toEqual(keywords);
  });

  it('too many keywords: refused before the search, naming the limits', async () => {
    const { ctx, searches } = ctxWithSearch();
    const keywords = Array.from({ length: RECIPIENT_SEARCH_LIMITS.keywords + 1 }, (_, i) => `k${i}`);
    const err = await showRecipients(ctx, { keywords, page: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues[0]?.message).toContain(
      `at most ${RECIPIENT_SEARCH_LIMITS.keywords} keywords`,
    );
    expect(searches).toHaveLength(0);
  });

  it('too many characters: refused', async () => {
    const { ctx, searches } = ctxWithSearch();
    const keywords = Array.from({ length: 12 }, (_, i) => `${i}`.padEnd(128, 'x'));
    const err = await showRecipients(ctx, { keywords, page: 1 }).catch((e: unknown) => e);
    expect((err as ValidationError).issues[0]?.field).toBe('keywords');
    expect(searches).toHaveLength(0);
  });

  it('the renderer drops the paging buttons of a search they cannot carry and says how to page', () => {
    const msg = recipientListMessage({
      siteId: 'DEMO',
      workspace: 'T1',
      items: [item],
      totalCount: 30,
      pageIndex: 2,
      pageUnit: 10,
      filters: { keywords: Array.from({ length: 16 }, (_, i) => `${i}`.padEnd(128, '"')) },
      timeZone: 'UTC',
    });
    const text = textOf(msg);
    expect(text).not.toContain('wm_recipients_page');
    expect(text).toContain('page:N');
  });
});
