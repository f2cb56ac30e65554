/**
 * `/dwm recipients` search list, `/dwm recipient` card, not-found reply and the edit modal. Pure.
 */
import type { Recipient } from '../../../api/types.js';
import { LIMITS as API_LIMITS } from '../../../api/validate.js';
import {
  actions,
  type Block,
  button,
  context,
  fields,
  header,
  LIMITS,
  type Message,
  type ModalView,
  message,
  modal,
  section,
  textInput,
} from '../../kit/blocks/blocks.js';
import { code, esc, truncate } from '../../kit/blocks/mrkdwn.js';
import { countedPaging, pagingButtons } from '../../kit/blocks/paging.js';
import { type UtcDays, utcDaysNote } from '../../kit/blocks/reader-dates.js';
import { dayListBlocks, pageCount } from '../../shared/wm/day-list.js';
import {
  type CardMeta,
  cardContext,
  count,
  encodeValue,
  plural,
  timeText,
  WM_ACTIONS,
  WM_VIEWS,
} from '../../shared/wm/values.js';
import { type RecipientsPageValue, recipientsPageValue } from './values.js';

export interface RecipientListInput {
  siteId: string;
  workspace: string;
  items: Recipient[];
  totalCount: number;
  pageIndex: number;
  pageUnit: number;
  filters: { keywords?: string[]; from?: string; to?: string };
  timeZone: string;
  /** Set with `from`/`to`: the covering UTC days asked for (see the jobs list). */
  utcDays?: UtcDays;
  meta?: CardMeta;
}

/** The filters as applied; dates are the reader's days, in their zone, said once. */
function filterText(f: RecipientListInput['filters'], timeZone: string): string {
  const parts: string[] = [];
  if (f.keywords?.length) parts.push(`names containing ${f.keywords.map((k) => code(k)).join(' or ')}`);
  if (f.from) parts.push(`registered from ${code(f.from)}`);
  if (f.to) parts.push(`to ${code(f.to)}`);
  const zone = f.from || f.to ? ` · dates and times in your time zone (${esc(timeZone)})` : '';
  return parts.length ? `Filters: ${parts.join(' · ')}${zone}` : 'No filters: every recipient.';
}

export function recipientListMessage(input: RecipientListInput): Message {
  const { items, totalCount, pageIndex, pageUnit, siteId } = input;
  const pages = pageCount(totalCount, pageUnit);
  const utc = input.utcDays;
  const title = utc ? `Recipients on ${siteId}` : `Recipients on ${siteId}: ${count(totalCount)} total`;
  const rows = items.map((r) => {
    const value = encodeValue({ w: input.workspace, s: siteId, r: r.dwmId });
    const desc = r.description ? `\n${esc(truncate(r.description, 100))}` : '';
    return section(
      `*${esc(truncate(r.name, 128))}* · DWM ID ${code(r.dwmId)} · registered ${timeText(r.regTime, input.timeZone)}${desc}`,
      { accessory: button('Details', WM_ACTIONS.recipientDetails, { value }) },
    );
  });
  const blocks = dayListBlocks({
    title,
    filterLine: filterText(input.filters, input.timeZone),
    utcNote: utc
      ? utcDaysNote(utc, plural(totalCount, 'recipient'), 'recipients registered on', pageUnit)
      : undefined,
    totalCount,
    pageIndex,
    pageUnit,
    pages,
    rows,
    noMatch: 'No recipients match. Try a shorter keyword (names match when they contain it), or no dates.',
    noun: 'recipient',
    onDays: 'was registered on',
  });
  const pageValue = (p: number): string | undefined => {
    const v: RecipientsPageValue = { w: input.workspace, s: siteId, p };
    const f = input.filters;
    if (f.keywords?.length) v.k = f.keywords;
    if (f.from) v.fr = f.from;
    if (f.to) v.to = f.to;
    // A search the buttons cannot carry (the command refuses one, but a renderer never throws):
    // no paging buttons, the context line says how to page instead.
    if (!recipientsPageValue.safeParse(v).success) return undefined;
    const s = JSON.stringify(v);
    return s.length <= LIMITS.buttonValue ? encodeValue(v) : undefined;
  };
  const { buttons: nav, unpageable } = pagingButtons(
    countedPaging(pageIndex, pages, WM_ACTIONS.recipientsPage, pageValue),
  );
  if (nav.length) blocks.push(actions(nav, 'wm_recipients_nav'));
  if (unpageable)
    blocks.push(
      context(
        `This search is too long for paging buttons: run the command again with ${code('page:N')}, or with fewer keywords.`,
      ),
    );
  if (input.meta) blocks.push(context(cardContext(input.meta)));
  return message(`${title}.`, blocks);
}

export interface RecipientCardInput {
  recipient: Recipient;
  workspace: string;
  siteId: string;
  timeZone: string;
  /** The name the user typed when it differs in case from the registered one (rule 4). */
  typedName?: string;
  /** A line on top (e.g. "Saved."), bot-authored mrkdwn. */
  notice?: string;
  meta?: CardMeta;
}

export function recipientCardMessage(input: RecipientCardInput): Message {
  const r = input.recipient;
  const title = `Recipient · ${truncate(r.name, 130)}`;
  const value = encodeValue({ w: input.workspace, s: input.siteId, r: r.dwmId });
  const blocks: Block[] = [];
  if (input.notice) blocks.push(section(input.notice));
  blocks.push(header(title));
  if (input.typedName !== undefined && input.typedName !== r.name) {
    blocks.push(
      context(
        `You asked for ${code(input.typedName)}; names ignore upper/lower case, so this is the recipient registered as ${code(r.name)}.`,
      ),
    );
  }
  blocks.push(
    section(undefined, {
      fields: fields([
        ['Name', esc(r.name)],
        ['DWM ID', code(r.dwmId)],
        ['Description', r.description ? esc(r.description) : '—'],
        ['Registered', timeText(r.regTime, input.timeZone)],
        ['Updated', timeText(r.updateTime, input.timeZone)],
      ]),
    }),
    actions([button('Edit', WM_ACTIONS.recipientEdit, { value, style: 'primary' })], 'wm_recipient_actions'),
  );
  if (input.meta) blocks.push(context(cardContext(input.meta)));
  return message(esc(`Recipient ${r.name} (DWM ID ${r.dwmId}).`), blocks);
}

export function recipientNotFoundMessage(messageText: string, suggestions: Recipient[]): Message {
  const blocks: Block[] = [section(`:grey_question: *${esc(messageText)}*`)];
  if (suggestions.length) {
    blocks.push(
      section(
        `Did you mean: ${suggestions.map((s) => `${code(s.name)} (DWM ID ${code(s.dwmId)})`).join(', ')}?`,
      ),
    );
  }
  blocks.push(context(`Search with ${code('/dwm recipients <part of the name>')}.`));
  return message(esc(messageText), blocks);
}

// ---------------------------------------------------------------------------------------------
// Edit modal
// ---------------------------------------------------------------------------------------------

export const RECIPIENT_EDIT_BLOCK = { name: 'name', description: 'description' } as const;

export function recipientLoadingView(): ModalView {
  return modal(WM_VIEWS.recipientEdit, 'Edit recipient', [section(':hourglass_flowing_sand: Loading…')]);
}

export function recipientEditView(r: Recipient, siteId: string, privateMetadata: string): ModalView {
  return modal(
    WM_VIEWS.recipientEdit,
    'Edit recipient',
    [
      section(`DWM ID ${code(r.dwmId)} on site ${code(siteId)}`),
      textInput(RECIPIENT_EDIT_BLOCK.name, 'Name', {
        initial: r.name,
        maxLength: API_LIMITS.recipientName,
        hint: 'Letters A-Z a-z, digits, hyphen, underscore and period; up to 128. Names ignore upper/lower case.',
      }),
      textInput(RECIPIENT_EDIT_BLOCK.description, 'Description', {
        initial: r.description,
        optional: true,
        // The service counts characters (an emoji is one), a field's length counts UTF-16 units
        // (an emoji is two): room for any description the service holds, so it is shown whole;
        // the form's check refuses one over 50 characters.
        maxLength: 2 * API_LIMITS.recipientDescription,
        hint: 'Up to 50 characters. Leave blank for none.',
      }),
    ],
    { submit: 'Save', privateMetadata },
  );
}

/** `why` is mrkdwn that is already escaped (e.g. built from `explainError`): not escaped again. */
export function recipientEditFailedView(why: string): ModalView {
  return modal(WM_VIEWS.recipientEdit, 'Edit recipient', [section(`:warning: ${why}`)], {
    close: 'Close',
  });
}
