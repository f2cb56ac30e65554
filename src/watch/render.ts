/**
 * A plain-text renderer (fallback text only, no blocks). The Slack side supplies the Block Kit
 * renderer; this one serves tests, the demo and as the `text` fallback shape.
 */
import { codeLabel, JOB_STATUS, type JobStatusCode } from '../api/codes.js';
import { explainFailureCode } from '../api/error-codes.js';
import type { JobSummary, OutageNotice, TaskFailure, WatchRenderer } from './types.js';

const EMOJI: Record<JobStatusCode, string> = {
  DM000: ':white_circle:',
  DM001: ':large_blue_circle:',
  DM500: ':large_green_circle:',
  DM600: ':red_circle:',
};

export function escapeSlack(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function statusText(s: JobStatusCode): string {
  // A status the specs do not list (a new one upstream) reads "unknown (CODE)", never "undefined".
  return `${EMOJI[s] ?? ':grey_question:'} ${escapeSlack(codeLabel(JOB_STATUS, s))}`;
}

/** A failure code in plain words ("unknown (CODE)" when the table does not know it). */
function failureText(f: TaskFailure): string {
  const e = explainFailureCode(f.cliErrorCode.trim() || f.status);
  const c = escapeSlack(e.code.slice(0, 40));
  return e.known ? `${escapeSlack(e.meaning)} (\`${c}\`)` : `unknown (\`${c}\`)`;
}

function head(j: JobSummary): string {
  return `Job \`${j.jobId}\` · ${escapeSlack(j.contentId)}`;
}

function tasksLine(j: JobSummary): string {
  const t = j.tasks;
  if (!t) return '';
  return ` · tasks ${t.completed}/${t.total} done${t.failed ? `, ${t.failed} failed` : ''}`;
}

/** Slack refuses message text over 40,000 characters (msg_too_long): the delivery would drop it. */
const MAX_TEXT = 40_000;

function clamp(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}

const unclamped: WatchRenderer = {
  renderJobCard(j) {
    return { text: `${head(j)}: ${statusText(j.status)}${tasksLine(j)} (site \`${j.siteId}\`)` };
  },
  renderThreadUpdate(u) {
    const j = u.summary;
    switch (u.kind) {
      case 'status':
        return {
          text: `${head(j)} moved from ${escapeSlack(codeLabel(JOB_STATUS, u.previous))} to ${statusText(j.status)}${tasksLine(j)}`,
        };
      case 'progress':
        return { text: `${head(j)} progress${tasksLine(j)}` };
      case 'task-failed':
        return {
          text: `${head(j)}: watermarking for recipient ${escapeSlack(u.failure.recipient)} (\`${u.failure.dwmId}\`) failed: ${failureText(u.failure)}. ${escapeSlack(explainFailureCode(u.failure.cliErrorCode.trim() || u.failure.status).next)}`,
        };
      case 'final': {
        const fails = j.tasks?.failures ?? [];
        const list = fails.length
          ? `\nFailed recipients: ${fails.map((f) => `${escapeSlack(f.recipient)}: ${failureText(f)}`).join(', ')}`
          : '';
        return { text: `${head(j)} finished: ${statusText(j.status)}${tasksLine(j)}${list}` };
      }
    }
  },
  renderDigest(d) {
    const lines = d.jobs
      .slice()
      .sort((a, b) => (a.status === b.status ? a.jobId - b.jobId : a.status === 'DM600' ? -1 : 1))
      .slice(0, 20)
      .map((j) => `• ${head(j)}: ${statusText(j.status)}`);
    const more = d.jobs.length > 20 ? `\n…and ${d.jobs.length - 20} more` : '';
    return {
      text: `${d.jobs.length} jobs finished on site \`${d.siteId}\`: ${d.completed} completed, ${d.failed} failed\n${lines.join('\n')}${more}`,
    };
  },
};

/** The outage notice in plain text (outage.ts). */
function outageText(n: OutageNotice): string {
  const since = new Date(n.sinceMs).toISOString().slice(0, 16).replace('T', ' ');
  if (n.kind === 'delayed') {
    return `Job notifications for site \`${escapeSlack(n.siteId)}\` are delayed: ${escapeSlack(n.reason)}, since ${since} UTC. The bot keeps trying and announces what happened meanwhile when the service answers again.`;
  }
  const c = n.caughtUp ?? { changes: 0, finished: 0 };
  return `Job notifications for site \`${escapeSlack(n.siteId)}\` resumed: the service answers again (it had failed since ${since} UTC). Caught up: ${c.changes} job change${c.changes === 1 ? '' : 's'}, ${c.finished} finished.`;
}

/** Service data (content ids, recipient names) can be long: every text is clamped to Slack's limit. */
export const plainRenderer: WatchRenderer = {
  renderJobCard: (j, sub) => ({ text: clamp(unclamped.renderJobCard(j, sub).text) }),
  renderThreadUpdate: (u, sub) => ({ text: clamp(unclamped.renderThreadUpdate(u, sub).text) }),
  renderDigest: (d, sub) => ({ text: clamp(unclamped.renderDigest(d, sub).text) }),
  renderOutageNotice: (n) => ({ text: clamp(outageText(n)) }),
};
