/**
 * Renderers against Slack's hard rules and the style guide: escaping in every mrkdwn
 * text (confirm dialogs included), button values that survive whatever the user typed, hints that
 * name real commands, and times as `<!date^…>` tokens.
 */
import { describe, expect, it } from 'vitest';
import type { Recipient } from '../../../src/api/types.js';
import type { PlanState } from '../../../src/ops/service/plan.js';
import { homeView } from '../../../src/slack/features/home/render.js';
import { registry } from '../../../src/slack/features/index.js';
import { planCard } from '../../../src/slack/features/plan/render.js';
import { recipientListMessage } from '../../../src/slack/features/recipients/render.js';
import { recipientsPageValue } from '../../../src/slack/features/recipients/values.js';
import { setupStatusMessage } from '../../../src/slack/features/setup/render.js';
import type { Block, ButtonElement } from '../../../src/slack/kit/blocks/blocks.js';
import { tokenize } from '../../../src/slack/kit/commands/parse.js';
import { decodeValue } from '../../../src/slack/shared/wm/values.js';

const allButtons = (blocks: Block[] = []) =>
  blocks
    .flatMap(
      (b): Array<{ type: string }> =>
        b.type === 'actions' ? b.elements : b.type === 'section' && b.accessory ? [b.accessory] : [],
    )
    .filter((e): e is ButtonElement => e.type === 'button');

describe('plan card confirm dialogs', () => {
  it('show the service-provided request id and type as plain text (no mention can form)', () => {
    const state: PlanState = {
      siteId: 'DEMO',
      serviceCode: 'PD001',
      serviceLabel: 'DRM',
      latest: {
        requestId: '<!channel>',
        type: '<!here|x>',
        typeLabel: '<!here|x>',
        status: 'ST001',
        statusLabel: 'Pending',
        pending: true,
        message: '',
        registeredBy: 'someone',
        regTime: { raw: '', epochMs: null },
      },
      actions: [{ action: 'cancel', requestType: 'SM004', label: 'Cancel', role: 'admin', allowed: true }],
    };
    const card = planCard(state, { workspace: 'T1', timeZone: 'UTC', audience: 'admin' });
    const cancel = allButtons(card.blocks).find((b) => b.action_id === 'svc_plan_cancel');
    // A confirm dialog's text is plain_text (Slack's Block Kit reference): Slack parses no mention
    // or link in it, so the service's strings are shown as they are, never as a live mention.
    expect(cancel?.confirm?.text.type).toBe('plain_text');
    expect(cancel?.confirm?.text.text).toContain('Cancels request <!channel>');
  });
});

describe('/dwm recipients paging buttons', () => {
  const item = (i: number): Recipient => ({
    dwmId: i,
    name: `name-${i}`,
    description: '',
    regTime: { raw: '', epochMs: null },
    updateTime: { raw: '', epochMs: null },
  });
  const input = (keywords: string[]) => ({
    siteId: 'DEMO',
    workspace: 'T1',
    items: [item(1)],
    totalCount: 100,
    pageIndex: 1,
    pageUnit: 10,
    filters: { keywords },
    timeZone: 'UTC',
  });

  it('Next still works after a search with more than 20 keywords', () => {
    // `/dwm recipients a1 a2 … a21`: the command accepts any number of keywords (rest()).
    const keywords = Array.from({ length: 21 }, (_, i) => `a${i}`);
    const msg = recipientListMessage(input(keywords));
    const next = allButtons(msg.blocks).find((b) => b.action_id?.startsWith('wm_recipients_page'));
    expect(next?.value).toBeDefined();
    expect(decodeValue(recipientsPageValue, next?.value)).toBeDefined();
  });

  it('a long search does not make the whole command fail', () => {
    // 16 keywords of 128 characters (each allowed by values.text(128)): the Next value is > 2000.
    const keywords = Array.from({ length: 16 }, (_, i) => `${i}`.padEnd(128, 'x'));
    expect(() => recipientListMessage(input(keywords))).not.toThrow();
  });
});

describe('Home tab hints', () => {
  it('the "and N more" line of channel watches names a command that exists', () => {
    const watches = Array.from({ length: 20 }, (_, i) => ({
      id: `sub_${String(i).padStart(16, '0')}`,
      workspace: 'T1',
      channelId: `C0${i}`,
      siteId: 'DEMO',
      statuses: [],
      mode: 'all',
      createdBy: 'U1',
      createdAt: '2026-11-22T09:00:00Z',
    }));
    const view = homeView(
      {
        generatedAt: 0,
        connection: { ok: false, reason: 'x' },
        jobs: { ok: false, reason: 'x' },
        sites: { ok: false, reason: 'x' },
        watches: { ok: true, value: watches },
        plan: { ok: false, reason: 'x' },
      } as never,
      { isAdmin: false, maxLines: 5 },
    );
    const more = JSON.stringify(view.blocks).match(/Run `(\/dwm [^`]+)` in a channel/);
    expect(more?.[1]).toBeDefined();
    const words = more![1]!.replace('/dwm ', '');
    const r = registry.resolve('/dwm', tokenize(words));
    // The command that lists a channel's watches is `/dwm watches` (not `/dwm watch list`).
    expect(r.kind === 'entry' && r.rest.length === 0 ? r.entry.path : r).toEqual(['watches']);
  });
});

describe('/dwm setup status', () => {
  it('shows "last verified" as a <!date^…> token (each reader in their own zone)', () => {
    const msg = setupStatusMessage(
      {
        configured: true,
        source: 'store',
        readOnly: false,
        siteIds: ['DEMO'],
        defaultSiteId: 'DEMO',
        verifiedAt: '2026-11-22T09:00:00.000Z',
        savedBy: 'U1',
      },
      'Asia/Seoul',
      true,
    );
    const text = JSON.stringify(msg.blocks);
    expect(text).toContain('Last verified');
    expect(text).toMatch(/Last verified <!date\^\d+\^/);
  });
});
