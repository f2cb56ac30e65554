/**
 * Bulk registration modals:
 *
 * 1. Form submission (`wm_register_form`): quick local checks answer inline; otherwise the ack
 *    switches the modal to "Checking…" (`response_action: 'update'`) within 3 s, and the slow part
 *    (download the CSV with the bot token, parse, plan against the service) runs after, ending in
 *    `views.update` to the preview. The input and the plan are kept in a draft in the store
 *    (`wm-drafts`, 1 hour TTL); private_metadata carries only the draft id and the site.
 * 2. Preview submission (`wm_register_preview`) = confirm: the modal says "started", and the run
 *    goes on in the background with its progress in the user's DM (see ./run.ts).
 */
import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { z } from 'zod';
import { existingLookup } from '../../../ops/recipients.js';
import {
  checkEntryCount,
  checkModalText,
  MODAL_TEXT_LIMIT,
  type ParsedInput,
  parseRecipientInput,
  planRegistration,
  type RegistrationPlan,
} from '../../../ops/watermarking/registration/plan.js';
import {
  deleteDraft,
  draftInputs,
  loadDraft,
  newDraftId,
  type RegistrationDraft,
  saveDraft,
} from '../../../ops/watermarking/registration/records.js';
import type { AppDeps } from '../../deps.js';
import type { ModalView } from '../../kit/blocks/blocks.js';
import { esc } from '../../kit/blocks/mrkdwn.js';
import type { CommandContext } from '../../kit/context/context.js';
import { explainError } from '../../kit/context/errors.js';
import { errorOptions, logError } from '../../kit/context/support.js';
import { type FormFailure, modal } from '../../kit/interactions/registry.js';
import { FileReadError, readSlackFile } from '../../kit/web/files.js';
import { encodeValue, WM_VIEWS } from '../../shared/wm/values.js';
import {
  REGISTER_BLOCK,
  registerCheckingView,
  registerFormView,
  registerPreviewView,
  registerProblemView,
  registerStartedView,
} from './render.js';
import { startBackgroundRegistration } from './run.js';
import { draftValue, type FormMetaValue, formMetaValue } from './values.js';

export function formMetadata(workspace: string, siteId: string, draftId?: string): string {
  return encodeValue({ w: workspace, s: siteId, ...(draftId ? { d: draftId } : {}) });
}

/**
 * The draft's typed list when it is longer than the form's text box holds (names typed inline
 * with the command): the form shows it as kept, never cut, and a Preview with the box left empty
 * checks it again.
 */
export function keptText(d: RegistrationDraft | undefined): string | undefined {
  return d && !d.file && d.text.length > MODAL_TEXT_LIMIT ? d.text : undefined;
}

/** Parse a draft's input (typed lines or a CSV file). */
export function parseDraft(d: RegistrationDraft): ParsedInput {
  const inputs = draftInputs(d);
  const first = inputs[0];
  if (!first) return { entries: [], errors: [] };
  return parseRecipientInput(first.text, first.format === 'csv' ? 'csv' : 'auto');
}

/**
 * The draft planned against the service: the preview, or the problem (with a way back to the
 * form). Never throws: a failure is the problem view, with the error to log.
 */
export async function planOutcome(
  deps: AppDeps,
  ctx: CommandContext,
  draft: RegistrationDraft,
): Promise<{ view: ModalView } | { again: FormFailure & { view: ModalView } }> {
  const meta = encodeValue({ w: ctx.workspace, s: draft.siteId, d: draft.id });
  try {
    const parsed = parseDraft(draft);
    const tooMany = checkEntryCount(parsed);
    if (tooMany) {
      await saveDraft(deps, ctx.workspace, draft);
      return { view: registerProblemView(esc(tooMany), meta) };
    }
    if (parsed.entries.length + parsed.errors.length === 0) {
      await saveDraft(deps, ctx.workspace, draft);
      return { view: registerProblemView('The list is empty: give at least one recipient name.', meta) };
    }
    const c = await ctx.clients();
    const site = c.site(draft.siteId);
    const plan = await planRegistration(parsed, existingLookup(c.watermarking(), site));
    const saved: RegistrationDraft = { ...draft, siteId: site, plan };
    await saveDraft(deps, ctx.workspace, saved);
    const source = draft.file
      ? `file ${draft.file.name}`
      : `${parsed.entries.length + parsed.errors.length} typed lines`;
    return { view: registerPreviewView({ plan, siteId: site, source, privateMetadata: meta }) };
  } catch (e) {
    const ex = explainError(e, { refId: ctx.refId });
    // explainError's text is escaped mrkdwn already: passed as is.
    return {
      again: { error: e, view: registerProblemView(`Couldn't check the list. ${ex.why} ${ex.next}`, meta) },
    };
  }
}

/** `planOutcome` shown in `viewId` (the modal the command opened). Never throws. */
export async function planIntoView(
  deps: AppDeps,
  ctx: CommandContext,
  client: WebClient,
  viewId: string,
  draft: RegistrationDraft,
): Promise<void> {
  const o = await planOutcome(deps, ctx, draft);
  if ('again' in o) logError(ctx, "Couldn't check the list", o.again.error, await errorOptions(ctx));
  await client.views
    .update({ view_id: viewId, view: 'again' in o ? o.again.view : o.view })
    .catch((err: unknown) => ctx.logger.error({ err }, 'could not update the registration view'));
}

function formText(view: ViewOutput): string {
  return view.state.values[REGISTER_BLOCK.text]?.value?.value ?? '';
}

function formFileId(view: ViewOutput): string | undefined {
  const v = view.state.values[REGISTER_BLOCK.file]?.value as unknown as
    | { files?: Array<{ id?: string }> }
    | undefined;
  const id = v?.files?.[0]?.id;
  return typeof id === 'string' && id ? id : undefined;
}

function formSite(view: ViewOutput): string | undefined {
  return view.state.values[REGISTER_BLOCK.site]?.value?.selected_option?.value ?? undefined;
}

type FormMeta = FormMetaValue;
interface FormData {
  text: string;
  fileId: string | undefined;
  siteId: string;
  previous: RegistrationDraft | undefined;
}

/** 1. The form: quick checks inline, "Checking…" at the ack, then read, plan and preview. */
export const registerFormModal = modal<FormMeta, FormData>({
  name: 'register.form',
  callbackId: WM_VIEWS.registerForm,
  meta: formMetaValue,
  stale: {
    block: REGISTER_BLOCK.text,
    text: 'This form is out of date. Close it and run /dwm register again.',
  },
  ackView: (_m, d) => registerCheckingView(d.fileId ? 'Reading the file and checking the list…' : undefined),
  failure: "Couldn't check the list",
  async check(ctx, meta, view) {
    const text = formText(view);
    const fileId = formFileId(view);
    const siteId = formSite(view) ?? meta.s;
    const tooLong = checkModalText(text);
    if (tooLong) return { errors: { [REGISTER_BLOCK.text]: tooLong } };
    if (text.trim() && fileId) {
      return {
        errors: {
          [REGISTER_BLOCK.file]: 'Use either the text box or a CSV file, not both. Remove one of them.',
        },
      };
    }
    // One store read before the ack.
    const previous = meta.d ? await loadDraft(ctx.deps, ctx.workspace, meta.d, ctx.userId) : undefined;
    if (!text.trim() && !fileId && !previous?.file && !keptText(previous)) {
      return {
        errors: { [REGISTER_BLOCK.text]: 'Type at least one recipient, or upload a CSV file below.' },
      };
    }
    return { ok: { text, fileId, siteId, previous } };
  },
  async submit(ctx, _meta, { text, fileId, siteId, previous }, { client }) {
    const deps = ctx.deps;
    const draft: RegistrationDraft = {
      id: previous?.id ?? newDraftId(),
      userId: ctx.userId,
      siteId,
      text,
      createdAt: new Date(deps.now()).toISOString(),
    };
    // A file (or a typed list too long for the box) kept from before is used only when nothing
    // new was given.
    if (!text.trim() && !fileId && previous?.file) draft.file = previous.file;
    else if (!text.trim() && !fileId) draft.text = keptText(previous) ?? text;
    if (fileId) {
      try {
        const f = await readSlackFile(deps, client, fileId);
        draft.file = { name: f.name, content: f.text, lines: f.text.split(/\r\n|\n|\r/).length };
      } catch (e) {
        const known = e instanceof FileReadError;
        const msg = known
          ? e.message
          : `Couldn't read the uploaded file (reference ${ctx.refId}). Upload it again.`;
        await saveDraft(deps, ctx.workspace, draft);
        const problem = registerProblemView(esc(msg), formMetadata(ctx.workspace, siteId, draft.id));
        return known
          ? { view: problem }
          : { again: { error: e, what: "Couldn't read the uploaded file", view: problem } };
      }
    }
    return planOutcome(deps, ctx, draft);
  },
});

type DraftMeta = z.infer<typeof draftValue>;

/** 2. The preview = confirm: "started" at the ack, then the run in the background. */
export const registerPreviewModal = modal<DraftMeta, RegistrationDraft & { plan: RegistrationPlan }>({
  name: 'register.confirm',
  callbackId: WM_VIEWS.registerPreview,
  meta: draftValue,
  stale: {
    view: (view) =>
      registerProblemView(
        'This preview has expired (lists are kept for one hour). Run /dwm register again.',
        view.private_metadata,
      ),
  },
  ackView: (_m, d) => registerStartedView(d.plan.counts.toRegister),
  failure: "Couldn't start the registration",
  async check(ctx, meta) {
    const draft = await loadDraft(ctx.deps, ctx.workspace, meta.d, ctx.userId);
    return draft?.plan ? { ok: { ...draft, plan: draft.plan } } : { stale: true };
  },
  async submit(ctx, _meta, draft, { client }) {
    await deleteDraft(ctx.deps, ctx.workspace, draft.id).catch(() => undefined);
    await startBackgroundRegistration(ctx.deps, ctx, client, draft.siteId, draft.plan);
    return undefined;
  },
});

// The checking / started / problem views have no submit; nothing to handle.

/** Open the form (trigger id first). */
export async function openRegisterForm(
  ctx: CommandContext,
  siteId: string,
  siteIds: string[],
): Promise<void> {
  await ctx.openView(
    registerFormView({ siteIds, siteId, privateMetadata: formMetadata(ctx.workspace, siteId) }),
  );
}

export { registerFormView };
