/**
 * Subscriptions are named for people (the channel and what is watched) and creators by mention;
 * the subscription id is shown only where it is typed (`/dwm unwatch id:…`), and said so.
 */
import { describe, expect, it } from 'vitest';
import {
  renderDigest,
  renderJobCard,
  renderThreadUpdate,
  subscriptionName,
} from '../../../../src/slack/features/watch/render-card.js';
import {
  pausedNotice,
  subscribedMessage,
  watchesMessage,
} from '../../../../src/slack/features/watch/render-subscriptions.js';
import type { JobSummary, Subscription } from '../../../../src/watch/types.js';

const sub: Subscription = {
  id: 'sub_0123456789abcdef',
  workspace: 'T1',
  channelId: 'C0123ABC',
  siteId: 'AB12',
  statuses: ['DM600', 'DM500'],
  content: 'trailer-*',
  mode: 'failures',
  createdBy: 'U0CREATOR',
  createdAt: '2026-11-22T09:00:00Z',
};
const job: JobSummary = {
  workspace: 'T1',
  siteId: 'AB12',
  jobId: 7,
  contentId: 'trailer-1',
  status: 'DM600',
  regTimeMs: null,
  updateTimeMs: null,
};
/** What a person reads: every `text` string (not button values, block or action ids). */
function visible(x: unknown): string {
  const out: string[] = [];
  const visit = (v: unknown, key?: string) => {
    if (typeof v === 'string') {
      if (key === 'text') out.push(v);
    } else if (Array.isArray(v)) {
      for (const e of v) visit(e);
    } else if (v && typeof v === 'object') {
      for (const [k, e] of Object.entries(v)) visit(e, k);
    }
  };
  visit(x);
  return out.join('\n');
}
/** Every place the subscription id occurs must come with the unwatch hint. */
describe('subscription names', () => {
  it('name: channel mention, site, statuses, content', () => {
    expect(subscriptionName(sub)).toBe(
      '<#C0123ABC>: site `AB12`, ERROR and COMPLETED jobs, content `trailer-*`',
    );
  });

  it('channel card, thread reply and digest carry the name, no user (bare, `code` or mention) or subscription id', () => {
    for (const m of [
      renderJobCard(job, sub),
      renderDigest({ siteId: 'AB12', jobs: [job], completed: 0, failed: 1 }, sub),
      renderThreadUpdate({ kind: 'final', summary: job, broadcast: true }, sub),
    ]) {
      const t = visible(m);
      expect(t).toContain('<#C0123ABC>: site');
      expect(t).not.toContain(sub.id);
      // The creator in no form: back-ticked, bare, or as a mention (a mention would notify them
      // on every card: see watchOwnerText).
      expect(t).not.toContain('U0CREATOR');
      expect(t).not.toContain('<@U0CREATOR>');
    }
  });

  it('/dwm watches: creator by mention, the name, a Stop button instead of an id to copy', () => {
    const m = watchesMessage([sub], 'C0123ABC', 0, { audience: 'member', userId: 'U0CREATOR' });
    const t = visible(m);
    expect(t).toContain('Created by <@U0CREATOR>');
    expect(t).toContain('<#C0123ABC>: site `AB12`, ERROR and COMPLETED jobs');
    expect(t).not.toContain(sub.id);
    expect(JSON.stringify(m.blocks)).toContain('"text":"Stop this watch"');
    // Shared in the channel (no button there): the id, with what to type it in.
    const shared = visible(watchesMessage([sub], 'C0123ABC', 0, { audience: 'everyone' } as never));
    expect(shared).toContain(`\`/dwm unwatch id:${sub.id}\``);
    expect(shared.split(sub.id).length - 1).toBe(1);
  });

  it('subscribed reply and paused notice: mention and name, id only with the hint', () => {
    const sm = subscribedMessage(sub, 'created', 'U0CREATOR');
    const s = visible(sm);
    expect(s).toContain('<@U0CREATOR>');
    // A button stops it: no id to copy.
    expect(s).not.toContain(sub.id);
    expect(JSON.stringify(sm.blocks)).toContain('"text":"Stop this watch"');
    const p = visible(pausedNotice(sub, 'not_in_channel', 'the bot was removed'));
    expect(p).toContain('Watch of <#C0123ABC>: site `AB12`');
    // The notification text (what a phone shows) names the channel too.
    expect(pausedNotice(sub, 'not_in_channel', 'the bot was removed').text).toBe(
      'Job notifications for <#C0123ABC> are paused: the bot was removed.',
    );
    expect(p).not.toContain(sub.id);
  });
});
