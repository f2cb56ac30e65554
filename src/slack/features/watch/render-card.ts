/**
 * Block Kit renderer of job notifications (the watch core's `WatchRenderer`): the job card
 * (edited in place as the job moves), thread updates, and the digest of a burst.
 *
 * Pure functions of the data. Every string from the service (content ids, recipients, error
 * codes) is escaped and cut; lists show problems first, what fits, then "and N more" with the
 * way to see everything (Export CSV) and the total count.
 */
import type { JobStatusCode } from '../../../api/codes.js';
import { explainFailureCode } from '../../../api/error-codes.js';
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
  LIMITS,
  type Message,
  message,
  section,
} from '../../kit/blocks/blocks.js';
import { channelMention, code, dateToken, esc, truncate, truncateMrkdwn } from '../../kit/blocks/mrkdwn.js';
import { failureLabel, failureLabelPlain, jobStatus } from '../../kit/blocks/status.js';

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
/** Failure codes listed on a card, one line each with its words (the core keeps 20 failures). */
const CODES_SHOWN = 3;
/** Recipients named per failure code before "and N more". */
const NAMES_PER_CODE = 3;
/** Jobs listed in a digest (the rest: "and N more" with the command that lists them all). */
const DIGEST_SHOWN = 10;

const name = (s: string) => esc(truncate(s, NAME_MAX));

/** A job's content id for a title; the service may send none. */
const contentOf = (j: JobSummary) => j.contentId || '(no content id)';

function title(j: JobSummary): string {
  return `Job ${code(j.jobId)} · ${name(contentOf(j))}`;
}

function statusWord(s: JobStatusCode): string {
  return jobStatus(s).replace(/^:[a-z_]+: /, '');
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * How the job stands, in words, for the first line: "failed: 1 of 2 recipients",
 * "completed: 2 recipients", "is preprocessing: 1 of 3 recipients done, 1 in progress".
 * Counters only when not zero.
 */
function standing(j: JobSummary): string {
  const t = j.tasks;
  switch (j.status) {
    case 'DM600':
      return t?.failed ? `failed: ${t.failed} of ${plural(t.total, 'recipient')}` : 'failed';
    case 'DM500':
      if (!t) return 'completed';
      return t.failed
        ? `completed, but ${t.failed} of ${plural(t.total, 'recipient')} failed`
        : `completed: ${plural(t.total, 'recipient')}`;
    case 'DM001':
      return `is preprocessing${t ? `: ${progressText(t)}` : ''}`;
    case 'DM000':
      return `is ready to start${t?.total ? ` (${plural(t.total, 'recipient')})` : ''}`;
    default:
      return `is ${statusWord(j.status)}`;
  }
}

/** "1 of 3 recipients done, 1 in progress, 1 failed": counters only when not zero. */
function progressText(t: NonNullable<JobSummary['tasks']>): string {
  const parts = [`${t.completed} of ${plural(t.total, 'recipient')} done`];
  if (t.progressing) parts.push(`${t.progressing} in progress`);
  if (t.failed) parts.push(`${t.failed} failed`);
  return parts.join(', ');
}

/** The emoji of the job's status (the words are in the line beside it). */
const emojiOf = (s: JobStatusCode) => jobStatus(s).match(/^:[a-z_]+:/)?.[0] ?? ':grey_question:';

/** The first line: what it is and how it stands, once. */
function headline(j: JobSummary): string {
  return `${emojiOf(j.status)} *${title(j)} ${standing(j)}*`;
}

/** Plain fallback text (notifications, screen readers): a sentence that stands alone. */
function sentence(j: JobSummary, what: string): string {
  return truncateMrkdwn(`Job ${j.jobId} (${esc(truncate(contentOf(j), NAME_MAX))}) ${what}.`, 3000);
}

/** The code a failure is explained by: its cli_error_code, or its status when none was given. */
function failureCodeOf(f: TaskFailure): string {
  return f.cliErrorCode.trim() || f.status;
}

const recipientOf = (f: TaskFailure) => name(f.recipient) || `task ${code(f.dwmId)}`;

/**
 * The failures grouped by code, each code once with its words and what to do:
 * "• alice, bob: the pre-embedder stopped … (`3`)." then "What to do: check that the content file …".
 * More codes than fit: "and N more" points to Export CSV.
 */
function failuresText(failures: readonly TaskFailure[], failedCount: number): string {
  const byCode = new Map<string, TaskFailure[]>();
  for (const f of failures) {
    const c = failureCodeOf(f);
    byCode.set(c, [...(byCode.get(c) ?? []), f]);
  }
  const lines: string[] = [];
  for (const [c, fs] of [...byCode].slice(0, CODES_SHOWN)) {
    const names = fs.slice(0, NAMES_PER_CODE).map(recipientOf);
    const rest = fs.length - names.length;
    const who = rest > 0 ? `${names.join(', ')} and ${rest} more` : names.join(', ');
    const e = explainFailureCode(c);
    lines.push(`• ${who}: ${failureLabel(c)}.\n      _What to do:_ ${esc(e.next)}`);
  }
  const listed = [...byCode.values()].slice(0, CODES_SHOWN).reduce((n, fs) => n + fs.length, 0);
  const more = failedCount - listed;
  if (more > 0)
    lines.push(`…and ${plural(more, 'more failed recipient')}: *Export CSV* lists every task with its code.`);
  return truncateMrkdwn(lines.join('\n'), LIMITS.sectionText);
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
  return `Watch of ${subscriptionName(sub)}`;
}

/** One context line: which watch, and when the job last changed. */
function cardContext(j: JobSummary, sub: Subscription): Block {
  const when = j.updateTimeMs ?? j.regTimeMs;
  // The service listed fewer tasks than its total_count: the counts above cover the listed ones.
  const listed = j.tasks ? listedTasksNote(j.tasks.total, j.tasks.reportedTotal) : undefined;
  return context(
    `${watchOwnerText(sub)}${when !== null ? ` · updated ${dateToken(when)}` : ''}${listed ? ` · ${listed}` : ''}`,
  );
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

/** In plain words for the fallback: "failed: 1 of 2 recipients". */
const standingPlain = (j: JobSummary) => standing(j).replace(/[*`]/g, '');

/**
 * The job card, edited in place as the job moves: the status once in the first line, the failures
 * by code with their words and what to do, one context line, Details and Export CSV. A job that
 * completed with nothing failed is its first line and the buttons.
 */
export function renderJobCard(j: JobSummary, sub: Subscription): Message {
  const text = sentence(j, standingPlain(j));
  const failed = j.tasks?.failed ?? 0;
  if (j.status === 'DM500' && failed === 0) {
    const when = j.updateTimeMs ?? j.regTimeMs;
    const tail = `site ${code(j.siteId)}${when !== null ? ` · ${dateToken(when)}` : ''}`;
    return message(text, [section(`${headline(j)} · ${tail}`), jobButtons(j, sub)]);
  }
  const blocks: Block[] = [section(headline(j))];
  if (j.tasks && failed > 0) blocks.push(section(failuresText(j.tasks.failures, failed)));
  blocks.push(cardContext(j, sub), jobButtons(j, sub));
  return message(text, blocks);
}

/** A thread reply: only what changed (never a copy of the card). */
export function renderThreadUpdate(u: ThreadUpdate, sub: Subscription): Message {
  const j = u.summary;
  switch (u.kind) {
    case 'status': {
      const text = `${jobStatus(u.previous)} → ${jobStatus(j.status)}`;
      return message(sentence(j, `moved from ${statusWord(u.previous)} to ${statusWord(j.status)}`), [
        section(text),
      ]);
    }
    case 'progress': {
      const p = j.tasks ? progressText(j.tasks) : 'no task counts yet';
      return message(sentence(j, `has ${p}`), [section(`Progress: ${p}.`)]);
    }
    case 'task-failed': {
      const f = u.failure;
      const c = failureCodeOf(f);
      const who = esc(truncate(f.recipient, NAME_MAX)) || `task ${f.dwmId}`;
      return message(
        truncateMrkdwn(
          `In job ${j.jobId} (${esc(truncate(contentOf(j), NAME_MAX))}), ${who} failed: ${esc(failureLabelPlain(c))}.`,
          3000,
        ),
        [section(`:red_circle: ${recipientOf(f)} failed: ${failureLabel(c)}.`)],
      );
    }
    case 'final': {
      const text = sentence(j, ended(j));
      // A broadcast stands alone in the channel: the first line, which watch, and the buttons.
      if (u.broadcast) return message(text, [section(headline(j)), cardContext(j, sub), jobButtons(j, sub)]);
      return message(text, [
        section(`${emojiOf(j.status)} ${ended(j).replace(/^./, (c) => c.toUpperCase())}.`),
      ]);
    }
  }
}

/** "ended in ERROR: 1 of 2 recipients failed", "completed: 2 recipients". */
function ended(j: JobSummary): string {
  const t = j.tasks;
  if (j.status === 'DM600')
    return `ended in ERROR${t?.failed ? `: ${t.failed} of ${plural(t.total, 'recipient')} failed` : ''}`;
  return standing(j);
}

/** One message for a burst of finished jobs: failures first, at most 10, "and N more", the total. */
export function renderDigest(d: DigestData, sub: Subscription): Message {
  const jobs = [...d.jobs].sort(
    (a, b) => Number(b.status === 'DM600') - Number(a.status === 'DM600') || a.jobId - b.jobId,
  );
  const counts = [d.completed ? `${d.completed} completed` : '', d.failed ? `${d.failed} failed` : '']
    .filter(Boolean)
    .join(', ');
  const head = `*${plural(d.jobs.length, 'job')} finished on site ${code(d.siteId)}:* ${counts}.`;
  const lines = jobs.slice(0, DIGEST_SHOWN).map((j) => `• ${emojiOf(j.status)} ${title(j)} ${standing(j)}`);
  const more = d.jobs.length - lines.length;
  if (more > 0) lines.push(`…and ${more} more: ${code(`/dwm jobs site:${d.siteId}`)} lists them.`);
  const blocks: Block[] = [
    section(`${head}\n${truncateMrkdwn(lines.join('\n'), LIMITS.sectionText - head.length - 1)}`),
    context(watchOwnerText(sub)),
  ];
  return message(`${plural(d.jobs.length, 'job')} finished on site ${esc(d.siteId)}: ${counts}.`, blocks);
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
