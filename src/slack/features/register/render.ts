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
import {
  actions,
  type Block,
  button,
  context,
  divider,
  fields,
  fileInput,
  type Message,
  type ModalView,
  message,
  modal,
  section,
  staticSelect,
  textInput,
} from '../../kit/blocks/blocks.js';
import { code, esc, truncate } from '../../kit/blocks/mrkdwn.js';
import { count, plural, WM_ACTIONS, WM_VIEWS } from '../../shared/wm/values.js';

export const REGISTER_BLOCK = { text: 'recipients_text', file: 'recipients_file', site: 'site' } as const;
export const REGISTER_TITLE = 'Register recipients';

export interface RegisterFormInput {
  text?: string;
  siteIds: string[];
  siteId: string;
  /** A file kept from an earlier submission of this draft. */
  keptFile?: { name: string; lines: number };
  /** A typed list kept from before, longer than the text box holds (never shown cut). */
  keptText?: { lines: number };
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
  blocks.push(
    fileInput(REGISTER_BLOCK.file, 'CSV file', ['csv', 'txt'], {
      optional: true,
      hint: 'Columns name,description (header row optional). Up to 10,000 recipients, 2 MB.',
    }),
  );
  if (input.keptFile) {
    blocks.push(
      context(
        `Kept from before: ${code(input.keptFile.name)} (${plural(input.keptFile.lines, 'line')}). Upload another file to replace it.`,
      ),
    );
  }
  if (input.keptText) {
    blocks.push(
      context(
        `Kept from before: the list you typed (${plural(input.keptText.lines, 'line')}), longer than the text box holds. Preview checks it again; type a list or upload a file to replace it.`,
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

export {
  type ReportMessageInput,
  registerProgressMessage,
  registerReportMessage,
} from '../../shared/registration/report.js';

/** The audit detail of a run (shared with the Workflow Builder step, so it lives in the kit). */
export { registerAuditDetail } from '../../shared/registration/run.js';

/** The CSV of the preview's non-registrable lines (invalid, duplicate, already registered). */
export function previewIssuesCsvComment(siteId: string, rows: number): string {
  return `Lines of your list that will not be registered on site ${code(siteId)}: ${plural(rows, 'row')}.`;
}

export function limitMessage(text: string): Message {
  return message(text, [section(`:warning: ${esc(text)}`)]);
}
