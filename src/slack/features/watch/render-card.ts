/**
 * Block Kit renderer of job notifications (the watch core's `WatchRenderer`): the job card
 * (edited in place as the job moves), thread updates, and the digest of a burst.
 *
 * Pure functions of the data. Every string from the service (content ids, recipients, error
 * codes) is escaped and cut; lists show problems first, what fits, then "and N more" with the
 * way to see everything (Export CSV) and the total count.
 */
import type { JobStatusCode } from '../../../api/codes.js';
import { listedTasksNote } from '../../../ops/jobs.js';
import type {
  ChannelMessage,
  DigestData,
  JobSummary,
  OutageNotice,
  Subscription,
  TaskFailure,
  ThreadUpdate,
  WatchRenderer,
} from '../../../watch/types.js';
import {
  actions,
  type Block,
  button,
  context,
  fields,
  LIMITS,
  type Message,
  message,
  section,
} from '../../kit/blocks.js';
import { channelMention, code, dateToken, esc, truncate, truncateMrkdwn } from '../../kit/mrkdwn.js';
import { failureLabel, failureLabelPlain, failureNextSteps, jobStatus } from '../../kit/status.js';

/** Action ids of the card buttons (handled in ./job-buttons.ts). */
export const WATCH_ACTIONS = {
  details: 'watch-job-details',
  export: 'watch-job-export',
  unsubscribe: 'watch-unsubscribe',
  resume: 'watch-resume',
  page: 'watch-watches-page',
} as const;

/**
 * Button value of Details / Export CSV: the workspace of the card, the site and the job (never a
 * secret). The listener refuses a click from another workspace (Slack Connect channels show the
 * card to both sides), like every other feature's buttons.
 * `w` is optional only for cards posted before it existed: see `parseJobRef`.
 */
export interface JobRef {
  w?: string;
  s: string;
  j: number;
}

export function jobRefValue(workspace: string, siteId: string, jobId: number): string {
  return JSON.stringify({ w: workspace, s: siteId, j: jobId } satisfies JobRef);
}

/**
 * Reads a card button's value; undefined when it is not one. A value without `w` comes from a card
 * posted by an older version: it is still read (the listener then acts only on the clicking user's
 * own workspace and its configured sites, the earlier behaviour) so old cards keep working during
 * the transition; remove that branch once no card older than the upgrade is in use.
 */
export function parseJobRef(value: string | undefined): JobRef | undefined {
  try {
    const v = JSON.parse(value ?? '') as Partial<JobRef>;
    if (
      typeof v.s === 'string' &&
      /^[A-Za-z0-9]{1,16}$/.test(v.s) &&
      Number.isSafeInteger(v.j) &&
      (v.j ?? 0) > 0 &&
      (v.w === undefined || (typeof v.w === 'string' && /^[A-Z0-9]{1,64}$/i.test(v.w)))
    )
      return v.w === undefined ? { s: v.s, j: v.j as number } : { w: v.w, s: v.s, j: v.j as number };
  } catch {
    // fall through
  }
  return undefined;
}

/** Longest content id / recipient shown before cutting (the CSV has the full text). */
const NAME_MAX = 120;
/** Failed recipients listed on a card (the core keeps at most 20). */
const FAILURES_SHOWN = 20;
/** Jobs listed in a digest. */
const DIGEST_SHOWN = 25;

const name = (s: string) => esc(truncate(s, NAME_MAX));

/** A job's content id for a title; the service may send none. */
const contentOf = (j: JobSummary) => j.contentId || '(no content id)';

function title(j: JobSummary): string {
  return `Job ${code(j.jobId)} · ${name(contentOf(j))}`;
}

/** Plain fallback text (notifications, screen readers): escaped, no blocks needed. */
function fallback(j: JobSummary, what: string): string {
  return truncateMrkdwn(`Job ${j.jobId} · ${esc(truncate(contentOf(j), NAME_MAX))}: ${what}`, 3000);
}

function statusWord(s: JobStatusCode): string {
  return jobStatus(s).replace(/^:[a-z_]+: /, '');
}

function countsFields(j: JobSummary): string[] {
  const t = j.tasks;
  const pairs: Array<[string, string]> = [['Status', jobStatus(j.status)]];
  if (t) {
    pairs.push(['Tasks', listedTasksNote(t.total, t.reportedTotal) ?? String(t.total)]);
    pairs.push([':large_green_circle: Complete', String(t.completed)]);
    pairs.push([':large_blue_circle: Progressing', String(t.progressing)]);
    pairs.push([':white_circle: Ready', String(t.ready)]);
    pairs.push([':red_circle: Failed', String(t.failed)]);
  } else {
    pairs.push(['Tasks', 'not counted yet']);
  }
  return fields(pairs);
}

/** The code a failure is explained by: its cli_error_code, or its status when none was given. */
function failureCodeOf(f: TaskFailure): string {
  return f.cliErrorCode.trim() || f.status;
}

function failureLine(f: TaskFailure): string {
  return `• ${name(f.recipient) || '(no recipient)'} (${code(f.dwmId)}): ${failureLabel(failureCodeOf(f))}`;
}

/** Failed recipients with their codes, within one section; "and N more" points to Export CSV. */
function failuresSection(j: JobSummary): Block | undefined {
  const t = j.tasks;
  if (!t || t.failed === 0) return undefined;
  const head = `*Failed recipients (${t.failed}):*`;
  const lines: string[] = [];
  let used = head.length;
  const shown = t.failures.slice(0, FAILURES_SHOWN);
  for (const f of shown) {
    const l = failureLine(f);
    if (used + l.length + 1 > LIMITS.sectionText - 120) break;
    lines.push(l);
    used += l.length + 1;
  }
  const more = t.failed - lines.length;
  if (more > 0) lines.push(`…and ${more} more: use *Export CSV* for every task with its code.`);
  const steps = failureNextSteps(shown.map(failureCodeOf), 3);
  const text = [head, ...lines].join('\n');
  return section(
    steps && text.length + steps.length + 2 <= LIMITS.sectionText ? `${text}\n\n${steps}` : text,
  );
}

/**
 * A subscription by name, mrkdwn: the channel and what is watched ("<#C…>: site `AB12`, ERROR and
 * COMPLETED jobs, content `trailer-*`"). Ids are for typing (`/dwm unwatch id:…`), not for reading:
 * only the `/dwm watches` list and the messages that offer that command show the id.
 */
export function subscriptionName(
  sub: Pick<Subscription, 'channelId' | 'siteId' | 'statuses' | 'content'>,
): string {
  const statuses = sub.statuses.length
    ? `${sub.statuses.map((c) => statusWord(c)).join(' and ')} jobs`
    : 'every job';
  const content = sub.content ? `, content ${code(truncate(sub.content, 60))}` : '';
  return `${channelMention(sub.channelId)}: site ${code(sub.siteId)}, ${statuses}${content}`;
}

/**
 * Which watch posted a channel message: its name (channel and what is watched), never a bare user
 * or subscription id. The creator is not named here: a `<@U…>` mention in a new channel message
 * notifies that person, and cards and digests are posted for every job, so the creator would be
 * pinged each time. `/dwm watches` (ephemeral, no notification) names them with a mention.
 */
export function watchOwnerText(sub: Subscription): string {
  return `Watch of ${subscriptionName(sub)} · \`/dwm watches\` shows who set it up`;
}

function cardContext(j: JobSummary, sub: Subscription): Block {
  const parts = [`Site ${code(j.siteId)}`];
  if (j.regTimeMs !== null) parts.push(`registered ${dateToken(j.regTimeMs)}`);
  if (j.updateTimeMs !== null) parts.push(`updated ${dateToken(j.updateTimeMs)}`);
  return context(parts.join(' · '), watchOwnerText(sub));
}

function jobButtons(j: JobSummary, sub: Subscription): Block {
  const value = jobRefValue(sub.workspace, j.siteId, j.jobId);
  return actions(
    [
      button('Details', WATCH_ACTIONS.details, { value, style: 'primary' }),
      button('Export CSV', WATCH_ACTIONS.export, { value }),
    ],
    `watch-job-${j.siteId}-${j.jobId}`,
  );
}

export function renderJobCard(j: JobSummary, sub: Subscription): Message {
  const blocks: Block[] = [
    section(`*${title(j)}*\n${jobStatus(j.status)}`),
    section(undefined, { fields: countsFields(j) }),
  ];
  const f = failuresSection(j);
  if (f) blocks.push(f);
  blocks.push(cardContext(j, sub), jobButtons(j, sub));
  const t = j.tasks;
  const counts = t
    ? ` · ${t.completed}/${t.total} tasks complete${t.failed ? `, ${t.failed} failed` : ''}`
    : '';
  return message(fallback(j, `${statusWord(j.status)}${counts}`), blocks);
}

function tasksText(j: JobSummary): string {
  const t = j.tasks;
  if (!t) return '';
  return `${t.completed} of ${t.total} tasks complete, ${t.progressing} progressing, ${t.ready} ready${t.failed ? `, ${t.failed} failed` : ''}.`;
}

export function renderThreadUpdate(u: ThreadUpdate, sub: Subscription): Message {
  const j = u.summary;
  switch (u.kind) {
    case 'status': {
      const text = `Moved from ${jobStatus(u.previous)} to ${jobStatus(j.status)}. ${tasksText(j)}`.trim();
      return message(fallback(j, `moved from ${statusWord(u.previous)} to ${statusWord(j.status)}`), [
        section(text),
      ]);
    }
    case 'progress':
      return message(fallback(j, tasksText(j) || 'progress'), [
        section(`Progress: ${tasksText(j) || 'tasks not counted yet.'}`),
      ]);
    case 'task-failed': {
      const f = u.failure;
      const text = `:red_circle: Watermarking for recipient ${name(f.recipient) || '(no recipient)'} (task ${code(f.dwmId)}) failed: ${failureLabel(failureCodeOf(f))}.`;
      const steps = failureNextSteps([failureCodeOf(f)]);
      return message(fallback(j, `a task failed: ${esc(failureLabelPlain(failureCodeOf(f)))}`), [
        section(steps ? `${text}\n${steps}` : text),
      ]);
    }
    case 'final': {
      const failed = j.status === 'DM600';
      const head = failed
        ? `:red_circle: *${title(j)} ended in ERROR.*`
        : `:large_green_circle: *${title(j)} completed.*`;
      const blocks: Block[] = [section(`${head}\n${tasksText(j)}`.trim())];
      const f = failuresSection(j);
      if (f) blocks.push(f);
      // A broadcast stands alone in the channel: give it the context and the buttons.
      if (u.broadcast) blocks.push(cardContext(j, sub), jobButtons(j, sub));
      return message(fallback(j, failed ? 'ended in ERROR' : 'completed'), blocks);
    }
  }
}

/** One message for a burst of finished jobs: failures first, what fits, the total. */
export function renderDigest(d: DigestData, sub: Subscription): Message {
  const jobs = [...d.jobs].sort(
    (a, b) => Number(b.status === 'DM600') - Number(a.status === 'DM600') || a.jobId - b.jobId,
  );
  const head = `*${d.jobs.length} jobs finished on site ${code(d.siteId)}:* ${d.completed} completed, ${d.failed} failed.`;
  const lines: string[] = [];
  let used = 0;
  for (const j of jobs.slice(0, DIGEST_SHOWN)) {
    const t = j.tasks;
    const failedTasks = t?.failed ? ` · ${t.failed} failed task${t.failed === 1 ? '' : 's'}` : '';
    const l = `• ${title(j)}: ${jobStatus(j.status)}${failedTasks}`;
    if (used + l.length + 1 > LIMITS.sectionText - 200) break;
    lines.push(l);
    used += l.length + 1;
  }
  const more = d.jobs.length - lines.length;
  if (more > 0) lines.push(`…and ${more} more: list them with ${code(`/dwm jobs site:${d.siteId}`)}.`);
  const blocks: Block[] = [section(head), section(lines.join('\n')), context(watchOwnerText(sub))];
  return message(
    `${d.jobs.length} jobs finished on site ${esc(d.siteId)}: ${d.completed} completed, ${d.failed} failed`,
    blocks,
  );
}

/**
 * An outage of the site's service (src/watch/outage.ts), told once to each watching channel: its
 * notifications are delayed and why; then, once, that they resumed and what was caught up.
 */
export function renderOutageNotice(n: OutageNotice, sub: Subscription): Message {
  const site = code(n.siteId);
  if (n.kind === 'delayed') {
    const text = `:hourglass_flowing_sand: Job notifications for site ${site} are delayed: ${esc(truncate(n.reason, 300))}, since ${dateToken(n.sinceMs)}.`;
    return message(`Job notifications for site ${esc(n.siteId)} are delayed`, [
      section(text),
      context(
        `The bot keeps trying on its own; nothing is lost: what happens meanwhile is announced here when the service answers again. ${watchOwnerText(sub)}`,
      ),
    ]);
  }
  const c = n.caughtUp ?? { changes: 0, finished: 0 };
  const caught =
    c.changes === 0
      ? 'No job changed meanwhile.'
      : `Caught up: ${c.changes} job change${c.changes === 1 ? '' : 's'}${c.finished ? ` (${c.finished} finished)` : ''}, announced above.`;
  return message(`Job notifications for site ${esc(n.siteId)} resumed`, [
    section(
      `:white_check_mark: Job notifications for site ${site} resumed: the service answers again (it had failed since ${dateToken(n.sinceMs)}${n.endedMs !== undefined ? `, until ${dateToken(n.endedMs)}` : ''}). ${caught}`,
    ),
    context(watchOwnerText(sub)),
  ]);
}

/** The renderer handed to `createWatcher`. */
export const blockRenderer: WatchRenderer = {
  renderJobCard: (j, sub) => asChannelMessage(renderJobCard(j, sub)),
  renderThreadUpdate: (u, sub) => asChannelMessage(renderThreadUpdate(u, sub)),
  renderDigest: (d, sub) => asChannelMessage(renderDigest(d, sub)),
  renderOutageNotice: (n, sub) => asChannelMessage(renderOutageNotice(n, sub)),
};

function asChannelMessage(m: Message): ChannelMessage {
  return m.blocks ? { text: m.text, blocks: m.blocks } : { text: m.text };
}
