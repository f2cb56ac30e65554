/**
 * plain_text fields get the same neutralising as mrkdwn (control, bidi and zero-width characters
 * replaced), in the builder so no caller can forget it; and every confirmation dialog's text is
 * plain_text, as Slack's Block Kit reference requires.
 */
import { describe, expect, it } from 'vitest';
import { toMemberView } from '../../../../src/ops/service/members.js';
import { allowedActions, type PlanState, toRequestView } from '../../../../src/ops/service/plan.js';
import { membersMessage } from '../../../../src/slack/features/members/render.js';
import { planCard } from '../../../../src/slack/features/plan/render.js';
import { watchesMessage } from '../../../../src/slack/features/watch/render-subscriptions.js';
import {
  button,
  confirmDialog,
  header,
  modal,
  plain,
  staticSelect,
  textInput,
} from '../../../../src/slack/kit/blocks/blocks.js';
import { UNSAFE_TEXT_CHARS } from '../../../../src/unsafe-text.js';

const RLO = '\u202e';
const ZWSP = '\u200b';
const hostile = `site${RLO}fdp.exe${ZWSP}`;
const UNSAFE = new RegExp(UNSAFE_TEXT_CHARS.source, 'u');

/** Every plain_text object of a payload. */
function plainTexts(x: unknown, out: string[] = []): string[] {
  if (Array.isArray(x)) for (const v of x) plainTexts(v, out);
  else if (x && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    if (o.type === 'plain_text' && typeof o.text === 'string') out.push(o.text);
    for (const v of Object.values(o)) plainTexts(v, out);
  }
  return out;
}

/** Every confirm dialog of a payload. */
function confirms(x: unknown, out: Array<{ text: { type: string; text: string } }> = []) {
  if (Array.isArray(x)) for (const v of x) confirms(v, out);
  else if (x && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    const c = o.confirm as { title?: unknown } | undefined;
    if (c && typeof c === 'object' && c.title) out.push(c as never);
    for (const v of Object.values(o)) confirms(v, out);
  }
  return out;
}

describe('plain_text neutralising', () => {
  it('headers, titles, labels, options, buttons and hints carry no bidi or zero-width characters', () => {
    const v = modal(`T ${hostile}`, `T ${hostile}`, [
      header(`Site ${hostile}`),
      textInput('b1', `Label ${hostile}`, { hint: hostile, placeholder: hostile }),
      staticSelect('b2', hostile, [{ text: hostile, value: 'x' }]),
    ]);
    const all = [...plainTexts(v), plain(hostile).text, button(hostile, 'a').text.text];
    expect(all.length).toBeGreaterThan(6);
    for (const t of all) expect(t).not.toMatch(UNSAFE);
    expect(header(`Site ${hostile}`)).toMatchObject({ text: { text: 'Site site\ufffdfdp.exe\ufffd' } });
  });
});

describe('confirmation dialogs', () => {
  it('the builder makes plain_text', () => {
    expect(confirmDialog('Sure?', `Stop ${hostile}?`).text).toEqual({
      type: 'plain_text',
      text: 'Stop site\ufffdfdp.exe\ufffd?',
      emoji: true,
    });
  });

  it("every renderer's confirm text is plain_text, unescaped (the plan card's Cancel included)", () => {
    const latest = toRequestView({
      siteId: 'DEMO',
      requestId: `REQ&1${RLO}`,
      type: 'SM003',
      message: 'x',
      status: 'ST001',
      registeredBy: 'demo-service',
      regTime: { raw: '', epochMs: 0 },
      updateTime: { raw: '', epochMs: 0 },
    });
    const state: PlanState = {
      siteId: 'DEMO',
      serviceCode: 'PD001',
      serviceLabel: 'DRM',
      latest,
      actions: allowedActions(latest, { productStatus: 'SE000' }),
    };
    const meta = { workspace: 'T1', userId: 'U1', atMs: 0, refId: 'r', timeZone: 'UTC' };
    const payloads = [
      planCard(state, { ...meta, audience: 'admin' }),
      membersMessage(
        {
          items: [
            toMemberView({
              groupName: 'Ops & more',
              groupSeq: 4242,
              memberSeq: 7,
              email: `a&b${RLO}@example.com`,
              status: 'MT001',
              regDate: '2026-01-01',
            }),
          ],
          page: 1,
          pageSize: 20,
          hasMore: false,
        },
        meta,
      ),
      watchesMessage(
        [
          {
            id: 'sub_0123456789abcdef',
            workspace: 'T1',
            channelId: 'C1',
            siteId: 'DEMO',
            statuses: [],
            mode: 'all',
            createdBy: 'U1',
            createdAt: '2026-11-22T09:00:00Z',
          },
        ],
        'C1',
        0,
        { audience: 'admin', userId: 'U9' },
      ),
    ];
    const found = payloads.flatMap((p) => confirms(p));
    expect(found.length).toBeGreaterThanOrEqual(3);
    for (const c of found) {
      expect(c.text.type).toBe('plain_text');
      expect(c.text.text).not.toMatch(UNSAFE);
      expect(c.text.text).not.toContain('&amp;');
      expect(c.text.text).not.toContain('`');
    }
    const cancel = confirms(payloads[0]).find((c) => c.text.text.startsWith('Cancels request'));
    expect(cancel?.text.text).toContain('REQ&1\ufffd');
  });
});
