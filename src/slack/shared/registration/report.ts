/**
 * The messages of a background registration (./run.ts) in the user's DM: the
 * progress bar while batches run, and the final report (counts, registered rows inline or every
 * line in an attached CSV, Resume / Retry failed). Pure.
 */
import type { RegistrationReport, ReportSummary } from '../../../ops/watermarking/registration/run.js';
import {
  actions,
  type Block,
  button,
  context,
  type Message,
  message,
  section,
} from '../../kit/blocks/blocks.js';
import { code, esc, truncate } from '../../kit/blocks/mrkdwn.js';
import { count, encodeValue, plural, WM_ACTIONS } from '../wm/values.js';

function bar(done: number, total: number): string {
  const width = 20;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `${'▰'.repeat(filled)}${'▱'.repeat(width - filled)}`;
}

/**
 * The progress of a registration, in the reader's terms: how many names are registered of how
 * many, and failures when there are any. No batch numbers, report ids or restart talk.
 */
export function registerProgressMessage(s: ReportSummary): Message {
  const c = s.counts;
  const toSend = c.registered + c.failed + c.outstanding;
  const failed = c.failed ? `, ${count(c.failed)} failed` : '';
  const t = `Registering recipients on ${s.siteId}: ${count(c.registered)} of ${count(toSend)} registered so far${failed}.`;
  return message(t, [
    section(
      `:hourglass_flowing_sand: *Registering recipients on site ${code(s.siteId)}*\n${bar(c.batchesDone + c.batchesFailed, c.batchesTotal)} ${count(c.registered)} of ${plural(toSend, 'name')} registered so far${failed}.`,
    ),
    context('The report comes here when it is done.'),
  ]);
}

export interface ReportMessageInput {
  summary: ReportSummary;
  report: Pick<RegistrationReport, 'registered' | 'failed'>;
  /** The full report (a CSV of every line) is attached below the message. */
  csvAttached: boolean;
  /**
   * The workspace the run belongs to: with it, a run that stopped before the end gets a Resume
   * button, and one that finished with failed batches a "Retry failed" button.
   */
  workspace?: string;
}

/** Registered rows listed inline when the CSV is not attached. */
const INLINE_ROWS = 20;

/** "1 already registered, 2 invalid lines": what was skipped and why, counters only when not zero. */
function skippedParts(c: ReportSummary['counts']): string[] {
  const parts: Array<[number, string]> = [
    [c.alreadyRegistered, 'already registered'],
    [c.registeredMeanwhile, 'registered meanwhile by someone else'],
    [c.duplicatesInInput, 'repeated in the list'],
    [c.invalid, c.invalid === 1 ? 'invalid line' : 'invalid lines'],
  ];
  return parts.filter(([n]) => n > 0).map(([n, w]) => `${count(n)} ${w}`);
}

/**
 * The final report: one sentence ("Registered 4 recipients on DEMO. Skipped 3: 1 already
 * registered, 2 invalid lines."), counters only when not zero; what failed and why; the
 * registered rows inline or every line in the attached CSV; Resume / Retry failed.
 */
export function registerReportMessage(input: ReportMessageInput): Message {
  const s = input.summary;
  const c = s.counts;
  const icon =
    s.status === 'completed' && c.failed === 0
      ? ':white_check_mark:'
      : s.status === 'interrupted'
        ? ':double_vertical_bar:'
        : ':warning:';
  const skipped = c.alreadyRegistered + c.registeredMeanwhile + c.duplicatesInInput + c.invalid;
  const sentences = (site: string) => {
    const out = [`Registered ${plural(c.registered, 'recipient')} on ${site}.`];
    if (skipped > 0) out.push(`Skipped ${count(skipped)}: ${skippedParts(c).join(', ')}.`);
    if (c.failed > 0) out.push(`${count(c.failed)} failed.`);
    if (s.status === 'interrupted')
      out.push(`It stopped before the end: ${plural(c.outstanding, 'name')} not sent yet.`);
    return out.join(' ');
  };
  const text = sentences(esc(s.siteId));
  const blocks: Block[] = [section(`${icon} ${sentences(code(s.siteId))}`)];
  if (s.interruptedReason) blocks.push(section(`:double_vertical_bar: ${esc(s.interruptedReason)}`));
  if (s.failedBatches.length > 0) {
    const lines = s.failedBatches
      .slice(0, 20)
      .map(
        (b) =>
          `• ${plural(b.names, 'name')} refused: ${esc(truncate(b.message, 300))}${b.code ? ` (${code(b.code)})` : ''}`,
      );
    if (s.failedBatches.length > 20) lines.push(`…and ${s.failedBatches.length - 20} more.`);
    blocks.push(section(`*What failed* (everything else was registered)\n${lines.join('\n')}`));
  }
  if (!s.needsCsv && input.report.registered.length > 0) {
    const rows = [...input.report.registered]
      .sort((a, b) => a.line - b.line)
      .slice(0, INLINE_ROWS)
      .map((r) => `${code(r.name)} · DWM ID ${code(r.dwmId)}`);
    blocks.push(section(`*Registered*\n${rows.join('\n')}`));
  }
  if (input.csvAttached) {
    blocks.push(
      context(
        `The full report, every line with its outcome and DWM ID, is in the CSV file below (${plural(s.rows, 'row')}).`,
      ),
    );
  }
  if (input.workspace && (s.status === 'interrupted' || (s.status === 'completed' && c.failed > 0))) {
    const retry = s.status !== 'interrupted';
    blocks.push(
      actions([
        button(retry ? 'Retry failed' : 'Resume', WM_ACTIONS.registerResume, {
          value: encodeValue({ w: input.workspace, s: s.siteId, r: s.id, ...(retry ? { f: 1 } : {}) }),
          style: 'primary',
        }),
      ]),
    );
    blocks.push(
      context(
        retry
          ? 'Retry failed sends the failed names again; names the service registered meanwhile are never sent twice.'
          : 'Resume sends what is left; batches already registered are never sent again.',
      ),
    );
  }
  return message(text, blocks);
}
