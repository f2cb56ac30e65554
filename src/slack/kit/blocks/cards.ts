/**
 * Text helpers shared by the feature renderers (`/drm` and `/dwm`): service times, counts and
 * the context line of a card. Pure functions only. ../../shared/svc/values.ts and ../../shared/wm/values.ts re-export
 * these next to their action ids and button value schemas.
 */
import type { TimeValue } from '../../../api/types.js';
import { listedTasksNote } from '../../../ops/jobs.js';
import { code, dateToken, esc, userMention } from './mrkdwn.js';

/** A service time as a date token (each reader's zone), or the raw text escaped, or "—". */
export function timeText(t: TimeValue | undefined, timeZone: string): string {
  if (!t) return '—';
  if (t.epochMs !== null) return dateToken(t.epochMs, timeZone);
  return t.raw ? esc(t.raw) : '—';
}

/** "1,234" */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "3 rows" / "1 row" */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

export interface CardMeta {
  siteId?: string;
  /** Who asked (Slack user id). */
  userId?: string;
  /** When the card was made (epoch ms). */
  atMs?: number;
  /** Reference id of the request. */
  refId?: string;
  timeZone?: string;
}

/** What `cardMetaOf` always gives (a `CardMeta` with every fact of a reply). */
export interface ReplyMeta {
  siteId?: string;
  userId: string;
  atMs: number;
  refId: string;
  timeZone: string;
}

/** What a card's facts are read from: a command's or an action's context (kit/context/types.ts). */
interface MetaSource {
  userId: string;
  refId: string;
  deps: { now(): number };
}

/**
 * The card facts of a reply to `ctx`: who asked, now, the request's reference id and the reader's
 * zone, and the site when the card is about one.
 */
export function cardMetaOf(ctx: MetaSource, timeZone: string, siteId: string): ReplyMeta & { siteId: string };
export function cardMetaOf(ctx: MetaSource, timeZone: string): ReplyMeta;
export function cardMetaOf(ctx: MetaSource, timeZone: string, siteId?: string): ReplyMeta {
  return {
    ...(siteId !== undefined ? { siteId } : {}),
    userId: ctx.userId,
    atMs: ctx.deps.now(),
    refId: ctx.refId,
    timeZone,
  };
}

/** Context line of a card: site, who asked, when, reference id. */
export function cardContext(m: CardMeta): string {
  const parts: string[] = [];
  if (m.siteId) parts.push(`Site ${code(m.siteId)}`);
  if (m.userId) parts.push(`asked by ${userMention(m.userId)}`);
  if (m.atMs !== undefined) parts.push(dateToken(m.atMs, m.timeZone ?? 'UTC'));
  if (m.refId) parts.push(`ref ${code(m.refId)}`);
  return parts.join(' · ');
}

/**
 * The line under a job's tasks when the service listed fewer than its total_count: "N of M tasks
 * shown" and why (src/ops/jobs.ts `listedTasksNote`); undefined when every task was listed.
 */
export function listedTasksLine(listed: number, reportedTotal: number | undefined): string | undefined {
  const note = listedTasksNote(listed, reportedTotal);
  if (!note) return undefined;
  return `:warning: ${note}: the service listed only these of the ${count(reportedTotal ?? listed)} it counts, and its task list has no paging to ask for the rest. Counts and failures here cover the ${count(listed)} listed.`;
}

/**
 * A site whose job notifications are delayed by an outage of its service (src/watch/outage.ts),
 * as one line of `/dwm watches` and the Home tab, while it lasts.
 */
export function outageLine(o: { siteId: string; sinceMs: number; reason: string }): string {
  return `:hourglass_flowing_sand: Job notifications for site ${code(o.siteId)} are delayed since ${dateToken(o.sinceMs)}: ${esc(o.reason.slice(0, 300))}. They resume on their own when the service answers again.`;
}
