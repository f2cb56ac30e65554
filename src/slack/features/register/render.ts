/**
 * Bulk registration screens: the form, "Checking…", the preview (N new / M already registered /
 * K duplicates / invalid lines with line numbers and reasons), "Started", and the progress and
 * final-report messages. Pure functions of data.
 *
 * The preview fits a view (<= 100 blocks): counts first, then invalid lines (problems first, as
 * many as fit in a few sections), then duplicates and already-registered samples, then "and N
 * more" with a button that sends the full list as a CSV file.
 */
import type { RegistrationPlan } from '../../../ops/watermarking/registration/plan.js';
import type { RegistrationReport, ReportSummary } from '../../../ops/watermarking/registration/run.js';
import {
  actions,
  type Block,
  button,
  context,
  divider,
  fields,
  header,
  type InputElement,
  type Message,
  type ModalView,
  message,
  modal,
  plain,
  section,
  staticSelect,
  textInput,
} from '../../kit/blocks.js';
import { code, esc, truncate } from '../../kit/mrkdwn.js';
import { count, encodeValue, plural, WM_ACTIONS, WM_VIEWS } from '../../kit/wm-values.js';

export const REGISTER_BLOCK = { text: 'recipients_text', file: 'recipients_file', site: 'site' } as const;
export const REGISTER_TITLE = 'Register recipients';

export interface RegisterFormInput {
  text?: string;
  siteIds: string[];
  siteId: string;
  /** A file kept from an earlier submission of this draft. */
  keptFile?: { name: string; lines: number };
  /** A problem to show on top (bot-authored sentence, escaped here). */
  problem?: string;
  privateMetadata: string;
}

export function registerFormView(input: RegisterFormInput): ModalView {
  const blocks: Block[] = [];
  if (input.problem) blocks.push(section(`:warning: ${esc(input.problem)}`), divider());
  blocks.push(
    section(
      'One recipient a line: `name` or `name, description`. Names: letters, digits, `-`, `_`, `.` (up to 128); descriptions up to 50 characters. You will see a preview before anything is registered.',
    ),
  );
  if (input.siteIds.length > 1) {
    blocks.push(
      staticSelect(
        REGISTER_BLOCK.site,
        'Site',
        input.siteIds.map((s) => ({ text: s, value: s })),
        { initial: input.siteId },
      ),
    );
  }
  blocks.push(
    textInput(REGISTER_BLOCK.text, 'Recipients', {
      multiline: true,
      optional: true,
      maxLength: 3000,
      ...(input.text ? { initial: input.text } : {}),
      placeholder: 'Netflix-EMEA, EMEA distribution\nhbo.max_us',
      hint: 'Up to 3000 characters. For longer lists use the CSV file below.',
    }),
  );
  const fileElement: InputElement = {
    type: 'file_input',
    action_id: 'value',
    filetypes: ['csv', 'txt'],
    max_files: 1,
  };
  blocks.push({
    type: 'input',
    block_id: REGISTER_BLOCK.file,
    label: plain('CSV file', 2000),
    element: fileElement,
    optional: true,
    hint: plain('Columns name,description (header row optional). Up to 10,000 recipients, 2 MB.', 2000),
  });
  if (input.keptFile) {
    blocks.push(
      context(
        `Kept from before: ${code(input.keptFile.name)} (${plural(input.keptFile.lines, 'line')}). Upload another file to replace it.`,
      ),
    );
  }
  return modal(WM_VIEWS.registerForm, REGISTER_TITLE, blocks, {
    submit: 'Preview',
    privateMetadata: input.privateMetadata,
  });
}

export function registerCheckingView(what = 'Checking the list against the service…'): ModalView {
  return modal(WM_VIEWS.registerChecking, REGISTER_TITLE, [
    section(`:hourglass_flowing_sand: *${esc(what)}*`),
    context('This takes a few seconds for long lists. You can close this window; nothing is sent yet.'),
  ]);
}

/**
 * The problem is mrkdwn that is already escaped (bot text, `explainError` output, or foreign text
 * passed through `esc()` by the caller): it is not escaped again, so a service message's "<" shows
 * as "<", not "&lt;".
 */
export function registerProblemView(problem: string, privateMetadata: string): ModalView {
  return modal(
    WM_VIEWS.registerChecking,
    REGISTER_TITLE,
    [
      section(`:warning: ${problem}`),
      actions([button('Back to edit', WM_ACTIONS.registerBack, { value: privateMetadata })]),
    ],
    { close: 'Close' },
  );
}

/** Max invalid lines listed in the preview; the rest are counted and downloadable. */
export const PREVIEW_INVALID_LINES = 60;
const LINES_PER_SECTION = 10;

export interface PreviewInput {
  plan: RegistrationPlan;
  siteId: string;
  /** Source shown to the user: "typed text", "file x.csv". */
  source: string;
  privateMetadata: string;
}

function lineSections(lines: string[]): Block[] {
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_SECTION) {
    out.push(section(lines.slice(i, i + LINES_PER_SECTION).join('\n')));
  }
  return out;
}

export function registerPreviewView(input: PreviewInput): ModalView {
  const { plan } = input;
  const c = plan.counts;
  const blocks: Block[] = [
    section(`*Preview for site ${code(input.siteId)}* (${esc(input.source)}). Nothing has been sent yet.`, {
      fields: fields([
        [
          'New, will be registered',
          `*${count(c.toRegister)}*${c.batches > 1 ? ` in ${c.batches} batches of up to 150` : ''}`,
        ],
        ['Already registered (skipped)', count(c.alreadyRegistered)],
        ['Duplicates in your list (skipped)', count(c.duplicatesInInput)],
        ['Invalid lines (not sent)', c.invalid ? `:warning: ${count(c.invalid)}` : '0'],
      ]),
    }),
  ];
  if (plan.invalid.length > 0) {
    blocks.push(divider(), section('*Invalid lines* (fix them and go back, or confirm to skip them)'));
    const lines = plan.invalid
      .slice(0, PREVIEW_INVALID_LINES)
      .map(
        (x) =>
          `Line ${x.line}: ${code(truncate(x.raw.trim(), 60))}: ${esc(truncate(x.reasons.join(' '), 200))}`,
      );
    blocks.push(...lineSections(lines));
    if (plan.invalid.length > PREVIEW_INVALID_LINES) {
      blocks.push(
        context(
          `…and ${plural(plan.invalid.length - PREVIEW_INVALID_LINES, 'more invalid line')}. "Download the list" sends all of them as a CSV.`,
        ),
      );
    }
  }
  if (plan.duplicatesInInput.length > 0) {
    const shown = plan.duplicatesInInput
      .slice(0, 10)
      .map((d) => `Line ${d.line}: ${code(d.name)} repeats line ${d.firstLine}`);
    const more = plan.duplicatesInInput.length - shown.length;
    blocks.push(
      divider(),
      section(
        `*Duplicates in your list* (the first is kept; names ignore upper/lower case)\n${shown.join('\n')}`,
      ),
    );
    if (more > 0) blocks.push(context(`…and ${plural(more, 'more duplicate')}.`));
  }
  if (plan.alreadyRegistered.length > 0) {
    const shown = plan.alreadyRegistered
      .slice(0, 10)
      .map(
        (a) =>
          `Line ${a.line}: ${code(a.name)}${a.registeredAs !== a.name ? ` (registered as ${code(a.registeredAs)})` : ''} · DWM ID ${code(a.dwmId)}`,
      );
    const more = plan.alreadyRegistered.length - shown.length;
    blocks.push(divider(), section(`*Already registered* (skipped)\n${shown.join('\n')}`));
    if (more > 0) blocks.push(context(`…and ${plural(more, 'more already registered')}.`));
  }
  const buttons = [button('Back to edit', WM_ACTIONS.registerBack, { value: input.privateMetadata })];
  if (plan.invalid.length + plan.duplicatesInInput.length + plan.alreadyRegistered.length > 0) {
    buttons.push(
      button('Download the list', WM_ACTIONS.registerInvalidCsv, { value: input.privateMetadata }),
    );
  }
  blocks.push(divider(), actions(buttons, 'wm_register_preview_actions'));
  if (c.toRegister === 0) {
    blocks.push(context('Nothing new to register: every valid name is already registered or repeated.'));
    return modal(WM_VIEWS.registerPreview, REGISTER_TITLE, blocks, {
      close: 'Close',
      privateMetadata: input.privateMetadata,
    });
  }
  return modal(WM_VIEWS.registerPreview, REGISTER_TITLE, blocks, {
    submit: `Register ${c.toRegister}`,
    close: 'Cancel',
    privateMetadata: input.privateMetadata,
  });
}

export function registerStartedView(toRegister: number): ModalView {
  return modal(
    WM_VIEWS.registerStarted,
    REGISTER_TITLE,
    [
      section(
        `:rocket: *Registering ${plural(toRegister, 'recipient')}.* Progress and the final report are in your direct messages with me. You can close this window.`,
      ),
    ],
    { close: 'Close' },
  );
}

// ---------------------------------------------------------------------------------------------
// Progress and report (DM message, updated in place)
// ---------------------------------------------------------------------------------------------

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

/** The message with the registration report id, for the audit log. */
export function registerAuditDetail(s: ReportSummary): string {
  const c = s.counts;
  return `register on site ${s.siteId}: ${c.registered} registered, ${c.alreadyRegistered + c.duplicatesInInput + c.invalid + c.registeredMeanwhile} skipped, ${c.failed} failed (report ${s.id}, ${s.status})`;
}

/** The CSV of the preview's non-registrable lines (invalid, duplicate, already registered). */
export function previewIssuesCsvComment(siteId: string, rows: number): string {
  return `Lines of your list that will not be registered on site ${code(siteId)}: ${plural(rows, 'row')}.`;
}

export function limitMessage(text: string): Message {
  return message(text, [section(`:warning: ${esc(text)}`)]);
}
