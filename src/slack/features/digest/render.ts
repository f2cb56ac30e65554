/**
 * Renderers of the daily digest (`digest`, exported to the notify runtime through
 * `Feature.notifyRenderers`) and of the `/dwm digest` replies.
 *
 * Pure: plain data in, a Message out. Every service string (content ids, site ids, request ids,
 * labels, a section's error text) is escaped; times are `<!date^…>` tokens with a fallback in the
 * digest's zone. Long lists are cut per section (then "and N more" with the command that shows
 * them all) and the whole message is fitted to Block Kit's limits.
 */
import type { NextStep } from '../../../next-step.js';
import type {
  Digest,
  DigestJobs,
  DigestLicenses,
  DigestPendingRequest,
  DigestRegistrations,
  DigestSchedule,
  DigestUnreadRequest,
  Section,
} from '../../../notices/types.js';
import type { DigestScheduleView, ScheduleDigestResult } from '../../../ops/digest.js';
import { digestText } from '../../../ops/notify-text.js';
import { formatTime } from '../../../time.js';
import {
  type Block,
  button,
  context,
  divider,
  header,
  type Message,
  message,
  section,
} from '../../kit/blocks/blocks.js';
import { channelMention, code, dateToken, esc, truncate, userMention } from '../../kit/blocks/mrkdwn.js';
import { nextStepCommand } from '../../kit/blocks/next-step.js';
import { jobStatus, requestStatus } from '../../kit/blocks/status.js';
import { encodeValue } from '../../kit/blocks/values.js';
import { WM_ACTIONS } from '../../shared/wm/values.js';

/** Lines per list (failed jobs, sites, requests) before "and N more". */
export const DIGEST_LIST_MAX = 15;
/** Failed jobs listed with a Details button each (one block each); the rest are counted. */
const FAILED_JOBS_OPENABLE = 10;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * A failed section's words: the reason, then what to do ("…: an admin can add them with
 * /dwm setup.", "… Run /dwm digest now to try again."). A digest stored before `next` holds the
 * whole sentence in `error`.
 */
function sectionFailureText(s: { ok: false; error: string; next?: NextStep }): string {
  if (!s.next) return s.error;
  const cmd = nextStepCommand(s.next);
  return s.next.do === 'setup'
    ? `${s.error}: an admin can add them with ${cmd}.`
    : `${s.error} Run ${cmd} to try again.`;
}

function failedSection(title: string, s: { ok: false; error: string; next?: NextStep }): Block {
  return section(`*${title}*\n:warning: Could not be loaded: ${esc(truncate(sectionFailureText(s), 500))}`);
}

/** Problems first (the style guide's rule for lists): failed, in flight, waiting, done. */
const STATUS_ORDER: readonly string[] = ['DM600', 'DM001', 'DM000', 'DM500'];

/** "ERROR 2 · COMPLETED 5" in the style guide's status words (zeros left out; none: "none"). */
function byStatusText(byStatus: Record<string, number>): string {
  const known = STATUS_ORDER.filter((c) => (byStatus[c] ?? 0) > 0).map(
    (c) => `${jobStatus(c)} ${byStatus[c]}`,
  );
  const other = Object.entries(byStatus)
    .filter(([c, n]) => !STATUS_ORDER.includes(c) && n > 0)
    .map(([c, n]) => `${jobStatus(c)} ${n}`);
  const all = [...known, ...other];
  return all.length > 0 ? all.join(' · ') : 'none';
}

/** Room for a section's lines (Slack cuts at 3000; the "and N more" line must survive). */
const SECTION_BUDGET = 2700;

/**
 * A title and as many rows as fit (at most DIGEST_LIST_MAX and SECTION_BUDGET characters), then
 * "…and N more: how" for the rows left out (`extra`: rows that were never in the list).
 */
function listText(title: string, rows: string[], how: string, extra = 0): string {
  let text = title;
  let shown = 0;
  for (const r of rows.slice(0, DIGEST_LIST_MAX)) {
    if (text.length + r.length + 1 > SECTION_BUDGET) break;
    text += `\n${r}`;
    shown++;
  }
  const hidden = rows.length - shown + extra;
  return hidden > 0 ? `${text}\n…and ${hidden} more: ${how}.` : text;
}

/** A site id in code, cut (ids are 4 characters; a hostile one is not). */
const site = (id: string) => code(truncate(id, 40));

function jobsBlocks(s: Section<DigestJobs>, workspace: string | undefined): Block[] {
  if (!s.ok) return [failedSection('Jobs', s)];
  const j = s.value;
  const total = Object.values(j.byStatus).reduce((a, b) => a + b, 0);
  const title = `*Jobs* (${plural(total, 'job')}${j.truncated ? ', at least' : ''}): ${byStatusText(j.byStatus)}`;
  const sites = j.perSite.filter((p) => Object.values(p.byStatus).some((n) => n > 0));
  const blocks: Block[] = [
    section(
      j.perSite.length > 1 && sites.length > 0
        ? listText(
            title,
            sites.map((p) => `• Site ${site(p.siteId)}: ${byStatusText(p.byStatus)}`),
            `see a site with ${code('/dwm jobs site:<site id>')}`,
          )
        : title,
    ),
  ];
  const failedTotal = j.failed.length + j.failedMore;
  if (failedTotal > 0) {
    const rows = j.failed.map((f) => {
      const recipients =
        f.failedRecipients === null
          ? 'failed recipients unknown (the tasks could not be read)'
          : plural(f.failedRecipients, 'failed recipient');
      return {
        f,
        text: `• Job ${code(f.jobId)} · content ${code(truncate(f.contentId, 120))} · ${recipients} · site ${site(f.siteId)}`,
      };
    });
    if (!workspace) {
      blocks.push(
        section(
          listText(
            `:red_circle: *Failed jobs* (${failedTotal})`,
            rows.map((r) => r.text),
            `see them with ${code('/dwm jobs status:error')}`,
            j.failedMore,
          ),
        ),
      );
    } else {
      // Each failed job opens with a button (its card, with its failures and Export CSV): no id to type.
      blocks.push(section(`:red_circle: *Failed jobs* (${failedTotal})`));
      const shown = rows.slice(0, FAILED_JOBS_OPENABLE);
      for (const r of shown) {
        blocks.push(
          section(r.text, {
            accessory: button('Details', WM_ACTIONS.jobDetails, {
              value: encodeValue({ w: workspace, s: r.f.siteId, j: r.f.jobId }),
            }),
          }),
        );
      }
      const hidden = failedTotal - shown.length;
      if (hidden > 0)
        blocks.push(context(`…and ${hidden} more: see them with ${code('/dwm jobs status:error')}.`));
    }
  }
  if (j.truncated)
    blocks.push(context('A site had more jobs than the digest reads: the counts are a floor.'));
  return blocks;
}

function registrationsBlocks(s: Section<DigestRegistrations>): Block[] {
  if (!s.ok) return [failedSection('Recipients registered', s)];
  const r = s.value;
  const sites = r.perSite.filter((p) => p.count > 0);
  const parts = sites.slice(0, DIGEST_LIST_MAX).map((p) => `${site(p.siteId)} ${p.count}`);
  if (sites.length > DIGEST_LIST_MAX) parts.push(`and ${sites.length - DIGEST_LIST_MAX} more sites`);
  return [
    section(
      `*Recipients registered*: ${r.total}${r.truncated ? ' (at least: a site had more than the digest reads)' : ''}${
        r.perSite.length > 1 && parts.length > 0 ? ` (${parts.join(', ')})` : ''
      }`,
    ),
  ];
}

/**
 * A site's license failures are red only past this ratio (percent) when the channel has no license
 * alert for the site (its alert's ratio is used then); amber below it, green with none.
 */
export const DIGEST_RED_RATIO_PCT = 5;

function licensesBlocks(s: Section<DigestLicenses>, alertRatioPct: Record<string, number> = {}): Block[] {
  if (!s.ok) return [failedSection('Licenses', s)];
  const sites = [...s.value.perSite].sort((a, b) => b.fail - a.fail || a.siteId.localeCompare(b.siteId));
  if (sites.length === 0) return [section('*Licenses*: no site.')];
  const rows = sites.map((p) => {
    const total = p.success + p.fail;
    const pct = total > 0 ? (p.fail * 100) / total : 0;
    const line = alertRatioPct[p.siteId] ?? DIGEST_RED_RATIO_PCT;
    const ratio = p.fail > 0 && total > 0 ? ` (${Math.round(pct)}% failed)` : '';
    // The status in words beside the colour: "over the 5% line" / "under the 5% line".
    const [icon, words] =
      p.fail === 0
        ? [':large_green_circle:', 'no failures']
        : pct >= line
          ? [':red_circle:', `over the ${line}% line`]
          : [':large_orange_circle:', `under the ${line}% line`];
    return `${icon} Site ${site(p.siteId)}, ${words}: ${p.truncated ? 'at least ' : ''}${p.success} issued · ${p.fail} failed${ratio}`;
  });
  return [section(listText('*Licenses*', rows, `see a site with ${code('/drm licenses site:<site id>')}`))];
}

function unreadBlocks(unread: DigestUnreadRequest[] | undefined): Block[] {
  if (!unread?.length) return [];
  const lines = unread
    .slice(0, 10)
    .map(
      (u) =>
        `${esc(truncate(u.serviceLabel, 40))} on site ${site(u.siteId)}: no earlier request could be read (${esc(truncate(u.code, 40))}: ${esc(truncate(u.message, 200))})`,
    );
  if (unread.length > 10) lines.push(`and ${unread.length - 10} more`);
  return [context(lines.join('\n'))];
}

function pendingBlocks(
  s: Section<DigestPendingRequest[]>,
  zone: string,
  unread?: DigestUnreadRequest[],
): Block[] {
  if (!s.ok) return [failedSection('Pending plan requests', s)];
  if (s.value.length === 0) {
    return [
      section(
        unread?.length
          ? '*Pending plan requests*: none among the products read.'
          : '*Pending plan requests*: none.',
      ),
      ...unreadBlocks(unread),
    ];
  }
  const rows = s.value.map((r) => {
    const since = r.regTimeMs !== null ? ` · asked ${dateToken(r.regTimeMs, zone)}` : '';
    return `• ${requestStatus(r.status)} ${esc(truncate(r.requestLabel, 80))} ${code(truncate(r.requestId, 40))} · ${esc(truncate(r.serviceLabel, 40))} · site ${site(r.siteId)}${since}`;
  });
  return [
    section(
      listText(`*Pending plan requests* (${s.value.length})`, rows, `see them with ${code('/drm plan')}`),
    ),
    ...unreadBlocks(unread),
  ];
}

/** The digest: jobs, registrations, licenses, pending plan requests of the last 24 h. */
export function digestMessage(d: Digest): Message {
  const zone = d.zone;
  const title = d.day ? `Daily digest · ${d.day}` : 'Digest · last 24 hours';
  const blocks: Block[] = [header(`:bar_chart: ${title}`)];
  blocks.push(
    context(
      `${dateToken(d.fromMs, zone)} – ${dateToken(d.toMs, zone)} · ${
        d.sites.length === 0
          ? 'no site configured'
          : `${plural(d.sites.length, 'site')}: ${d.sites
              .slice(0, 20)
              .map((s) => site(s))
              .join(', ')}${d.sites.length > 20 ? ` and ${d.sites.length - 20} more` : ''}`
      }`,
    ),
  );
  if (d.lateNote || (d.missedDays && d.missedDays.length > 0)) {
    const lines: string[] = [];
    if (d.lateNote) {
      // The core's note says the time in UTC; with the occurrence known, each reader sees their zone.
      lines.push(
        d.scheduledFor !== undefined
          ? `:hourglass: *Posted late*: this digest was due ${dateToken(d.scheduledFor, zone)}; the bot was not running at that time.`
          : `:hourglass: ${esc(truncate(d.lateNote, 500))}`,
      );
    }
    if (d.missedDays && d.missedDays.length > 0) {
      const days = d.missedDays.slice(0, 14).map((x) => code(truncate(x, 20)));
      const extra = d.missedDays.length > 14 ? ` and ${d.missedDays.length - 14} more` : '';
      lines.push(
        `:warning: No digest was posted for ${days.join(', ')}${extra} (the bot was not running then). This digest covers the last 24 hours only; ${code('/dwm jobs')} and ${code('/drm licenses')} show older days.`,
      );
    }
    blocks.push(section(lines.join('\n')));
  }
  blocks.push(
    divider(),
    ...jobsBlocks(d.jobs, d.workspace),
    ...registrationsBlocks(d.registrations),
    ...licensesBlocks(d.licenses, d.alertRatioPct),
    ...pendingBlocks(d.pendingRequests, zone, d.pendingUnread),
  );
  blocks.push(
    context(
      d.scheduledFor !== undefined
        ? `Scheduled for ${dateToken(d.scheduledFor, zone)} · ${code('/dwm digest')} shows or changes the schedule`
        : `Asked for with ${code('/dwm digest now')} · ${code('/dwm digest daily HH:MM')} posts one every day`,
    ),
  );
  return message(esc(digestText(d)), blocks);
}

// ---------------------------------------------------------------------------------------------
// Command replies
// ---------------------------------------------------------------------------------------------

function scheduleLine(s: DigestSchedule, nextAt: number): string {
  return `Every day at ${code(s.time)} ${esc(s.zone)} in ${channelMention(s.channelId)} · next ${dateToken(nextAt, s.zone)} (${esc(formatTime(nextAt, s.zone))})`;
}

export function scheduledMessage(r: ScheduleDigestResult, userId: string): Message {
  const s = r.schedule;
  const verb = { created: 'scheduled', updated: 'moved', unchanged: 'already scheduled' }[r.status];
  const blocks: Block[] = [
    section(`:calendar: Daily digest ${verb} for ${channelMention(s.channelId)}.`),
    section(scheduleLine(s, r.next.at)),
  ];
  if (r.previous) blocks.push(context(`Was: every day at ${code(r.previous.time)} ${esc(r.previous.zone)}`));
  blocks.push(
    section(
      `It shows the last 24 hours: jobs by status (failed ones listed), recipients registered, license successes and failures per site, pending plan requests. ${code('/dwm digest now')} posts one now, ${code('/dwm digest off')} stops it.`,
    ),
    context(`By ${userMention(userId)}`),
  );
  return message(`Daily digest ${verb}: every day at ${s.time} ${esc(s.zone)}.`, blocks);
}

export function scheduleMessage(channelId: string, v: DigestScheduleView | undefined): Message {
  if (!v) {
    return message('This channel has no daily digest.', [
      section(`${channelMention(channelId)} has no daily digest.`),
      section(
        `${code('/dwm digest daily 09:00')} posts one every day at 09:00 in your time zone (or add a zone: ${code('/dwm digest daily 09:00 Europe/Berlin')}); ${code('/dwm digest now')} posts one now.`,
      ),
    ]);
  }
  const s = v.schedule;
  const blocks: Block[] = [section(`:calendar: *Daily digest*\n${scheduleLine(s, v.next.at)}`)];
  if (s.paused) {
    blocks.push(
      section(
        `:double_vertical_bar: *Paused*: Slack refused to post here (${code(s.paused.code)}). Run ${code(`/dwm digest daily ${s.time} ${s.zone}`)} to resume.`,
      ),
    );
  }
  blocks.push(
    context(
      `Set up by ${userMention(s.createdBy)}${s.lastDay ? ` · last posted for ${code(s.lastDay)}` : ''} · ${code('/dwm digest off')} stops it`,
    ),
  );
  return message(`Daily digest: every day at ${s.time} ${esc(s.zone)}.`, blocks);
}

export function stoppedMessage(channelId: string, removed: DigestSchedule | undefined): Message {
  if (!removed) {
    return message('This channel has no daily digest.', [
      section(`${channelMention(channelId)} has no daily digest: nothing to stop.`),
    ]);
  }
  return message('Daily digest stopped.', [
    section(
      `:white_check_mark: Stopped the daily digest of ${channelMention(channelId)} (was every day at ${code(removed.time)} ${esc(removed.zone)}).`,
    ),
  ]);
}

export function digestNowMessage(channelId: string): Message {
  return message('A digest of the last 24 hours is on its way.', [
    section(
      `:hourglass_flowing_sand: A digest of the last 24 hours is on its way to ${channelMention(channelId)}; it takes a few seconds to read every site.`,
    ),
  ]);
}
