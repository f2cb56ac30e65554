/** The Details reply of a job card: the job's summary from `summariseJob` (problems first). */
import type { JobSummary as OpsJobSummary } from '../../../ops/jobs.js';
import {
  type Block,
  context,
  fields,
  LIMITS,
  type Message,
  message,
  section,
} from '../../kit/blocks/blocks.js';
import { listedTasksLine } from '../../kit/blocks/cards.js';
import { code, dateToken, esc, truncate } from '../../kit/blocks/mrkdwn.js';
import { failureLabel, failureNextSteps, jobStatus, taskStatus } from '../../kit/blocks/status.js';

export function jobDetailsMessage(siteId: string, s: OpsJobSummary): Message {
  const j = s.job;
  const blocks: Block[] = [
    section(`*Job ${code(j.jobId)} · ${esc(truncate(j.contentId, 120))}*\n${jobStatus(j.status)}`),
    section(undefined, {
      fields: fields([
        ['Tasks', String(s.total)],
        [':red_circle: Failed', String(s.failures.length)],
        [':large_blue_circle: Progressing', String(s.counts.TK001)],
        [':white_circle: Ready', String(s.counts.TK000)],
        [':large_green_circle: Complete', String(s.counts.TK002)],
        [
          'Failure codes',
          s.failureCodes.length
            ? s.failureCodes
                .slice(0, 5)
                .map((c) => `${failureLabel(c.code)} ×${c.count}`)
                .join(', ')
            : 'none',
        ],
      ]),
    }),
  ];
  if (s.shown.length) {
    const lines: string[] = [];
    let used = 0;
    for (const t of s.shown) {
      const l = `• ${esc(truncate(t.recipient, 120)) || '(no recipient)'} (${code(t.dwmId)}): ${taskStatus(t.status)}${t.cliErrorCode.trim() && t.cliErrorCode.trim() !== '0' ? `: ${failureLabel(t.cliErrorCode)}` : ''}`;
      if (used + l.length + 1 > LIMITS.sectionText - 200) break;
      lines.push(l);
      used += l.length + 1;
    }
    const more = s.total - lines.length;
    if (more > 0) lines.push(`…and ${more} more of ${s.total}: use *Export CSV* for every task.`);
    blocks.push(section(lines.join('\n')));
  }
  const listed = listedTasksLine(s.total, s.reportedTotal);
  if (listed) blocks.push(context(listed));
  const steps = failureNextSteps(s.failureCodes.map((c) => c.code));
  if (steps) blocks.push(section(steps));
  const when: string[] = [`Site ${code(siteId)}`];
  if (j.regTime.epochMs !== null) when.push(`registered ${dateToken(j.regTime.epochMs)}`);
  if (j.updateTime.epochMs !== null) when.push(`updated ${dateToken(j.updateTime.epochMs)}`);
  blocks.push(context(when.join(' · ')));
  return message(`Job ${j.jobId}: ${s.total} tasks, ${s.failures.length} failed`, blocks);
}
