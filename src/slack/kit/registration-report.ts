/**
 * The messages of a background registration (./registration-run.ts) in the user's DM: the
 * progress bar while batches run, and the final report (counts, registered rows inline or every
 * line in an attached CSV, Resume / Retry failed). Pure.
 */
import type { RegistrationReport, ReportSummary } from '../../ops/watermarking/registration/run.js';
import {
  actions,
  type Block,
  button,
  context,
  fields,
  header,
  type Message,
  message,
  section,
} from './blocks.js';
import { code, esc, truncate } from './mrkdwn.js';
import { count, encodeValue, plural, WM_ACTIONS } from './wm-values.js';

function bar(done: number, total: number): string {
  const width = 20;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `${'▰'.repeat(filled)}${'▱'.repeat(width - filled)}`;
}

export function registerProgressMessage(s: ReportSummary): Message {
  const c = s.counts;
  const t = `Registering recipients on ${s.siteId}: batch ${c.batchesDone + c.batchesFailed} of ${c.batchesTotal}`;
  return message(t, [
    section(
      `:hourglass_flowing_sand: *Registering recipients on site ${code(s.siteId)}*\n${bar(c.batchesDone + c.batchesFailed, c.batchesTotal)} batch ${c.batchesDone + c.batchesFailed} of ${c.batchesTotal}`,
      {
        fields: fields([
          ['Registered so far', count(c.registered)],
          ['Failed so far', count(c.failed)],
          ['Still to send', count(c.outstanding)],
        ]),
      },
    ),
    context(`Report ${code(s.id)} · kept for 7 days; a restart of the bot picks it up where it stopped.`),
  ]);
}

export interface ReportMessageInput {
  summary: ReportSummary;
  report: Pick<RegistrationReport, 'registered' | 'failed'>;
  /** A CSV of every line is attached (more rows than fit). */
  csvAttached: boolean;
  /**
   * The workspace the run belongs to: with it, a run that stopped before the end gets a Resume
   * button, and one that finished with failed batches a "Retry failed" button.
   */
  workspace?: string;
}

/** Registered rows listed inline when the CSV is not attached. */
const INLINE_ROWS = 20;

export function registerReportMessage(input: ReportMessageInput): Message {
  const s = input.summary;
  const c = s.counts;
  const icon =
    s.status === 'completed' && c.failed === 0
      ? ':white_check_mark:'
      : s.status === 'interrupted'
        ? ':double_vertical_bar:'
        : ':warning:';
  const headline =
    s.status === 'interrupted'
      ? `Registration on ${s.siteId} stopped before the end`
      : `Registration on ${s.siteId} finished`;
  const skipped = c.alreadyRegistered + c.registeredMeanwhile + c.duplicatesInInput + c.invalid;
  const blocks: Block[] = [
    header(`${headline}`),
    section(
      `${icon} ${plural(c.registered, 'recipient')} registered, ${count(skipped)} skipped, ${count(c.failed)} failed.`,
      {
        fields: fields([
          ['Registered', count(c.registered)],
          ['Already registered', count(c.alreadyRegistered)],
          ['Registered meanwhile by someone else', count(c.registeredMeanwhile)],
          ['Duplicates in the list', count(c.duplicatesInInput)],
          ['Invalid lines', count(c.invalid)],
          ['Failed', count(c.failed)],
          ['Batches', `${c.batchesDone} done, ${c.batchesFailed} failed, of ${c.batchesTotal}`],
        ]),
      },
    ),
  ];
  if (s.interruptedReason) blocks.push(section(`:double_vertical_bar: ${esc(s.interruptedReason)}`));
  if (s.failedBatches.length > 0) {
    const lines = s.failedBatches
      .slice(0, 20)
      .map(
        (b) =>
          `Batch ${b.index + 1} (${plural(b.names, 'name')}): ${b.code ? `${code(b.code)} ` : ''}${esc(truncate(b.message, 300))}`,
      );
    if (s.failedBatches.length > 20) lines.push(`…and ${s.failedBatches.length - 20} more failed batches.`);
    blocks.push(section(`*Failed batches* (the other batches were registered)\n${lines.join('\n')}`));
  }
  if (!input.csvAttached && input.report.registered.length > 0) {
    const rows = [...input.report.registered]
      .sort((a, b) => a.line - b.line)
      .slice(0, INLINE_ROWS)
      .map((r) => `${code(r.name)} · DWM ID ${code(r.dwmId)}`);
    blocks.push(section(`*Registered*\n${rows.join('\n')}`));
  }
  if (input.csvAttached) {
    blocks.push(
      context(`Every line with its outcome and DWM ID is in the CSV file below (${plural(s.rows, 'row')}).`),
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
  blocks.push(context(`Report ${code(s.id)}`));
  return message(`${headline}: ${c.registered} registered, ${skipped} skipped, ${c.failed} failed.`, blocks);
}
