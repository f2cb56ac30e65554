/**
 * One-line plain-text summaries of the notify notices: the `text` fallback of the Slack messages
 * (notifications, screen readers) and the wording the Block Kit renderers start from. PLAIN TEXT:
 * service and user strings are included as they are; the Slack layer escapes them (and
 * neutralises bidi/zero-width characters) before mrkdwn, like every other service string.
 */
import type { Digest, LicenseAlert, Ranked, RequestOutcomeNotice } from '../notices/types.js';

function pct(ratio: number): string {
  const p = ratio * 100;
  return `${p >= 10 || Number.isInteger(p) ? Math.round(p) : p.toFixed(1)}%`;
}

function ranked(list: Ranked[], n = 3): string {
  return list
    .slice(0, n)
    .map((r) => `${r.key} (${r.count})`)
    .join(', ');
}

/** "Your trial extension request RG1 for site AB12 (DRM) was approved." */
export function requestOutcomeText(n: RequestOutcomeNotice): string {
  const what =
    n.kind === 'site'
      ? `additional site request ${n.requestId} (${n.siteName ?? 'new site'})`
      : `${n.requestLabel.toLowerCase()} request ${n.requestId} for site ${n.siteId}${n.serviceLabel ? ` (${n.serviceLabel})` : ''}`;
  switch (n.outcome) {
    case 'approved':
      return `Your ${what} was approved${n.kind === 'site' && n.siteId ? `: the new site id is ${n.siteId}` : ''}.`;
    case 'cancelled':
      return `Your ${what} was cancelled${n.cancelledBy ? ' by another member' : ' outside the bot'}.`;
    case 'superseded':
      return `Your ${what} was replaced by a newer request${n.supersededBy ? ` (${n.supersededBy})` : ''}; its final status cannot be read any more.`;
    default:
      // A status word the bot does not read as a decision, shown as the service sent it.
      return `Your ${what} has the status "${n.status}", which the bot does not know as pending, approved or cancelled; it is no longer followed.`;
  }
}

/** "License failures on AB12: 13 of 40 failed (33%) in the last 15 minutes. Top errors: ..." */
export function alertText(a: LicenseAlert): string {
  const s = a.stats;
  const sub = a.subscription;
  const window = `in the last ${sub.windowMinutes} minutes`;
  const counts = `${s.truncated ? 'at least ' : ''}${s.failed} of ${s.total} license requests failed (${pct(s.ratio)}) ${window}`;
  if (a.kind === 'recovery') {
    return `License failures on site ${s.siteId} are back under ${sub.ratioPct}%: ${counts}. The spike peaked at ${pct(a.peakRatio)}.`;
  }
  const parts = [
    `${a.state === 'recovered' ? 'Recovered: l' : 'L'}icense failures on site ${s.siteId}: ${counts} (threshold ${sub.ratioPct}%).`,
  ];
  if (s.topErrors.length > 0) parts.push(`Top errors: ${ranked(s.topErrors)}.`);
  if (s.topContent.length > 0) parts.push(`Most affected content: ${ranked(s.topContent)}.`);
  if (s.topDevices.length > 0) parts.push(`Most affected devices: ${ranked(s.topDevices)}.`);
  return parts.join(' ');
}

/** "Daily digest (last 24 h): 3 jobs, 1 failed; 6 recipients registered; licenses 2 ok / 1 failed; 1 pending plan request." */
export function digestText(d: Digest): string {
  const parts: string[] = [];
  if (d.jobs.ok) {
    const total = Object.values(d.jobs.value.byStatus).reduce((a, b) => a + b, 0);
    parts.push(`${total} job${total === 1 ? '' : 's'}, ${d.jobs.value.byStatus.DM600 ?? 0} failed`);
  } else parts.push('jobs unavailable');
  if (d.registrations.ok) parts.push(`${d.registrations.value.total} recipients registered`);
  if (d.licenses.ok) {
    const ok = d.licenses.value.perSite.reduce((a, s) => a + s.success, 0);
    const fail = d.licenses.value.perSite.reduce((a, s) => a + s.fail, 0);
    parts.push(`licenses ${ok} issued / ${fail} failed`);
  }
  if (d.pendingRequests.ok) {
    const n = d.pendingRequests.value.length;
    parts.push(`${n} pending plan request${n === 1 ? '' : 's'}`);
  }
  return `${d.day ? 'Daily digest' : 'Digest'} (last 24 h): ${parts.join('; ')}.${d.lateNote ? ` ${d.lateNote}` : ''}${missedDaysText(d)}`;
}

/** Missed days named in the text at most (as in the blocks). */
const MISSED_NAMED = 14;

/**
 * " No digest was posted for 2026-11-20, 2026-11-21 (the bot was not running then)." when days
 * were missed and the late note does not name them already (an on-time digest after an outage
 * carries no late note), so the text says what the blocks say.
 */
function missedDaysText(d: Digest): string {
  const days = d.missedDays ?? [];
  if (days.length === 0) return '';
  if (d.lateNote && days.every((day) => d.lateNote?.includes(day))) return '';
  const named = days.slice(0, MISSED_NAMED).join(', ');
  const more = days.length > MISSED_NAMED ? ` and ${days.length - MISSED_NAMED} more` : '';
  return ` No digest was posted for ${named}${more} (the bot was not running then); this one covers the last 24 hours only.`;
}
