/**
 * Admin-only buttons are rendered only for a reader who may use them: an admin reading alone.
 * A member's view lacks them (and says who can act); a message shared in the channel names the
 * admin command instead. The server-side checks stay (see the e2e tests: a member clicking the
 * admin's button is refused). The Home tab's Setup: test/slack/features/home/view.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TimeValue } from '../../../src/api/types.js';
import { toMemberView } from '../../../src/ops/service/members.js';
import { allowedActions, type PlanState, toRequestView } from '../../../src/ops/service/plan.js';
import { membersMessage } from '../../../src/slack/features/members/render.js';
import { planCard } from '../../../src/slack/features/plan/render.js';
import { watchesMessage } from '../../../src/slack/features/watch/render-subscriptions.js';
import type { Block } from '../../../src/slack/kit/blocks/blocks.js';
import { type Audience, mayRender } from '../../../src/slack/kit/context/roles/admission.js';
import type { Subscription } from '../../../src/watch/types.js';

const AT = Date.UTC(2026, 10, 22, 9);
const tv = (ms: number): TimeValue => ({ raw: new Date(ms).toISOString(), epochMs: ms });

function actionIds(blocks: Block[] | undefined): string[] {
  return (blocks ?? [])
    .filter((b) => b.type === 'actions')
    .flatMap((b) =>
      ((b as { elements?: Array<{ action_id: string }> }).elements ?? []).map((e) => e.action_id),
    );
}

function planState(pending: boolean): PlanState {
  const latest = toRequestView({
    siteId: 'DEMO',
    requestId: 'REQ-1',
    type: 'SM003',
    message: 'm',
    status: pending ? 'ST001' : 'ST003',
    registeredBy: 'x',
    regTime: tv(AT),
    updateTime: tv(AT),
  });
  return {
    siteId: 'DEMO',
    serviceCode: 'PD002',
    serviceLabel: 'FWM',
    latest,
    actions: allowedActions(latest, { productStatus: 'SE000' }),
  };
}

const card = (pending: boolean, audience: Audience) =>
  planCard(planState(pending), { workspace: 'T1', timeZone: 'UTC', audience });

describe('the rule', () => {
  it('member buttons for everyone; admin buttons only for an admin reading alone', () => {
    expect(mayRender('member', 'member')).toBe(true);
    expect(mayRender('everyone', 'member')).toBe(true);
    expect(mayRender('admin', 'admin')).toBe(true);
    expect(mayRender('member', 'admin')).toBe(false);
    expect(mayRender('everyone', 'admin')).toBe(false);
  });
});

describe('plan card', () => {
  it('suspension: the admin has the button, a member does not (and is told), the channel gets the command', () => {
    expect(actionIds(card(false, 'admin').blocks)).toEqual([
      'svc_plan_request_trial',
      'svc_plan_request_suspend',
    ]);
    const member = card(false, 'member');
    expect(actionIds(member.blocks)).toEqual(['svc_plan_request_trial']);
    expect(JSON.stringify(member.blocks)).toContain('Only admins can request a suspension');
    const shared = card(false, 'everyone');
    expect(actionIds(shared.blocks)).toEqual(['svc_plan_request_trial']);
    expect(JSON.stringify(shared.blocks)).toContain('`/drm plan suspend fwm site:DEMO`');
  });

  it('cancel of a pending request: admin only', () => {
    expect(actionIds(card(true, 'admin').blocks)).toEqual(['svc_plan_cancel']);
    expect(actionIds(card(true, 'member').blocks)).toEqual([]);
    expect(actionIds(card(true, 'everyone').blocks)).toEqual([]);
    expect(JSON.stringify(card(true, 'everyone').blocks)).toContain('`/drm plan cancel fwm site:DEMO`');
  });
});

describe('members list', () => {
  const page = {
    items: [
      toMemberView({
        groupName: 'BIZ',
        groupSeq: 1000,
        memberSeq: 1,
        email: 'a@x.example',
        status: 'MT001',
        regDate: '2026-01-01',
      }),
    ],
    page: 2,
    pageSize: 20,
    hasMore: true,
  };
  const meta = { workspace: 'T1', userId: 'U1', atMs: AT, refId: 'r', timeZone: 'UTC' };
  it('the admin reading alone has the buttons; shared in the channel it has none and names the command', () => {
    const alone = actionIds(membersMessage(page, meta).blocks);
    expect(alone).toEqual(expect.arrayContaining(['svc_member_group', 'svc_member_reset_pw']));
    const shared = membersMessage(page, { ...meta, shared: true });
    expect(actionIds(shared.blocks)).toEqual([]);
    expect(JSON.stringify(shared.blocks)).toContain('`/drm members`');
  });
});

describe('/dwm watches', () => {
  const sub = (id: string, createdBy: string): Subscription => ({
    id,
    workspace: 'T1',
    channelId: 'C0123ABC',
    siteId: 'AB12',
    statuses: [],
    mode: 'all',
    createdBy,
    createdAt: new Date(AT).toISOString(),
  });
  const subs = [sub('sub_000000000000000a', 'U0ADMIN'), sub('sub_000000000000000b', 'U0MEMBER')];
  const unsub = (audience: Audience, userId: string) =>
    actionIds(watchesMessage(subs, 'C0123ABC', 0, { audience, userId }).blocks).filter(
      (a) => a === 'watch-unsubscribe',
    ).length;

  it('a member has Unsubscribe on their own subscription only; an admin on every one; the channel on none', () => {
    expect(unsub('admin', 'U0ADMIN')).toBe(2);
    expect(unsub('member', 'U0MEMBER')).toBe(1);
    expect(unsub('member', 'U0OTHER')).toBe(0);
    expect(unsub('everyone', 'U0ADMIN')).toBe(0);
    const shared = JSON.stringify(
      watchesMessage(subs, 'C0123ABC', 0, { audience: 'everyone', userId: 'U0ADMIN' }),
    );
    expect(shared).toContain('/dwm unwatch id:sub_000000000000000a');
  });
});
