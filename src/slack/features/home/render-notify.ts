/**
 * The Home tab's notifications block, for the viewer (src/ops/notify-home.ts): their requests the
 * bot is waiting on (they get a DM when the provider decides), the license-failure alert
 * subscriptions and daily digests they set up. Pure; within the tab's block budget (a few
 * sections: lines are packed, each list is capped with "and N more").
 */

import type { TrackedRequest } from '../../../notices/requests.js';
import type { NotifyHomeSummary } from '../../../ops/notify-home.js';
import { type Block, context, header, section } from '../../kit/blocks/blocks.js';
import { channelMention, code, dateToken, esc, truncate } from '../../kit/blocks/mrkdwn.js';
import { pausedWhy } from '../../shared/notices/paused.js';

/** Lines per list. */
const MAX_LINES = 5;

function requestLine(t: TrackedRequest, tz: string): string {
  const what =
    t.kind === 'site'
      ? `Additional site ${esc(truncate(t.siteName ?? '', 80))} · request ${code(t.requestId)}`
      : `${esc(t.requestLabel)} · ${t.serviceCode === 'PD002' ? 'FWM' : 'DRM'} on site ${code(t.siteId)} · request ${code(t.requestId)}`;
  const card =
    t.card && !t.card.channel.startsWith('D') ? ` · card in ${channelMention(t.card.channel)}` : '';
  return `:hourglass_flowing_sand: ${what} · asked ${dateToken(t.requestedAt, tz)}${card}`;
}

function capped(lines: string[]): string[] {
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), `…and ${lines.length - MAX_LINES} more.`];
}

/** Paused: the Slack error in words (the stored reason is worded for job watches). */
const paused = (p: { reason: string; code: string } | undefined) =>
  p ? ` · :double_vertical_bar: paused: ${esc(truncate(pausedWhy(p.code), 120))}` : '';

/** The block; `undefined` summary (could not be read) shows nothing. */
export function notifyBlocks(s: NotifyHomeSummary | undefined, tz: string): Block[] {
  if (!s) return [];
  const out: Block[] = [header('Your notifications')];
  const lines: string[] = [];
  if (s.pendingRequests.length > 0) {
    lines.push(`*Waiting for the provider* (you get a DM when it decides):`);
    lines.push(...capped(s.pendingRequests.map((t) => requestLine(t, tz))));
  }
  if (s.alerts.length > 0) {
    lines.push('*License-failure alerts you set up:*');
    lines.push(
      ...capped(
        s.alerts.map(
          (a) =>
            `${channelMention(a.channelId)} · site ${code(a.siteId)} · ${a.ratioPct}% failed of at least ${a.minRequests} in ${a.windowMinutes} min${paused(a.paused)}`,
        ),
      ),
    );
  }
  if (s.digests.length > 0) {
    lines.push('*Daily digests you scheduled:*');
    lines.push(
      ...capped(
        s.digests.map(
          (d) =>
            `${channelMention(d.channelId)} · daily at ${code(d.time)} ${esc(d.zone)}${d.paused ? paused(d.paused) : ` · next ${dateToken(d.nextAt, tz)}`}`,
        ),
      ),
    );
  }
  if (lines.length === 0) {
    out.push(
      context(
        'Nothing pending. Plan and site requests you make through the bot are followed here, and you get a DM when the provider decides.',
      ),
    );
    return out;
  }
  out.push(section(lines.join('\n')));
  return out;
}
