/**
 * Renderers of `/dwm watch`, `/dwm unwatch`, `/dwm watches` and their modal, plus the direct
 * messages of the watch runtime (a subscription paused; polling paused for an admin).
 */
import { JOB_STATUS_CODES, type JobStatusCode } from '../../../api/codes.js';
import type { ValidationIssue } from '../../../api/errors.js';
import { SHARED_CHANNEL, type Subscription } from '../../../watch/types.js';
import {
  actions,
  type Block,
  type ButtonElement,
  button,
  confirmDialog,
  context,
  LIMITS,
  type Message,
  type ModalView,
  message,
  modal,
  type OptionObject,
  plain,
  section,
  staticSelect,
  textInput,
} from '../../kit/blocks/blocks.js';
import { outageLine } from '../../kit/blocks/cards.js';
import { channelMention, code, dateToken, esc, truncate, userMention } from '../../kit/blocks/mrkdwn.js';
import { pagingButtons } from '../../kit/blocks/paging.js';
import { jobStatus } from '../../kit/blocks/status.js';
import { sharedChannelMessage } from '../../kit/context/channels/replies.js';
import type { Audience } from '../../kit/context/roles/admission.js';
import { subscriptionName, WATCH_ACTIONS } from './render-card.js';

export const WATCH_MODAL_CALLBACK = 'watch_subscribe';
export const WATCH_BLOCK = {
  site: 'watch_site',
  statuses: 'watch_statuses',
  content: 'watch_content',
  mode: 'watch_mode',
} as const;

/** Kept here for the files that import it from the watch feature (it lives in the kit). */
export { channelMention };

/** "completed, error" or "every status". */
function statusesText(s: readonly JobStatusCode[]): string {
  return s.length === 0 ? 'every status' : s.map((c) => jobStatus(c)).join(', ');
}

/** One line describing the filters of a subscription. */
export function filtersText(sub: Pick<Subscription, 'siteId' | 'statuses' | 'content' | 'mode'>): string {
  const content = sub.content ? `content ${code(truncate(sub.content, 200))}` : 'any content';
  return `Site ${code(sub.siteId)} · ${statusesText(sub.statuses)} · ${content} · ${modeText(sub)}`;
}

function modeText(sub: Pick<Subscription, 'mode'>): string {
  return sub.mode === 'failures'
    ? 'mode `failures` (only failures are broadcast to the channel)'
    : 'mode `all` (completions and failures are broadcast)';
}

/** The bot cannot post in the channel: how to invite it. */
export function inviteMessage(
  channelId: string,
  why: 'not_member' | 'not_visible' | 'archived' | 'external',
): Message {
  if (why === 'external') return sharedChannelMessage(channelId, 'post job notifications here');
  if (why === 'archived') {
    return message('This channel is archived: the app cannot post here.', [
      section(':warning: *This channel is archived*, so the app cannot post job notifications here.'),
      section('Run `/dwm watch` in an active channel.'),
    ]);
  }
  const where = why === 'not_member' ? channelMention(channelId) : 'this channel';
  return message(
    'The app is not in this channel. Invite it with /invite @drm-chatops, then run /dwm watch again.',
    [
      section(`:warning: *The app is not in ${where}*, so it cannot post job notifications here.`),
      section('Invite it with `/invite @drm-chatops` in this channel, then run `/dwm watch` again.'),
    ],
  );
}

export type CreateOutcome = 'created' | 'resumed' | 'updated' | 'unchanged';

export function subscribedMessage(sub: Subscription, outcome: CreateOutcome, userId: string): Message {
  const verb: Record<CreateOutcome, string> = {
    created: 'is now watching',
    resumed: 'resumed watching',
    updated: 'updated the watch of',
    unchanged: 'was already watching',
  };
  const head = `:eyes: ${channelMention(sub.channelId)} ${verb[outcome]} jobs on site ${code(sub.siteId)}.`;
  return message(`This channel ${verb[outcome]} jobs on site ${esc(sub.siteId)}.`, [
    section(head),
    section(filtersText(sub)),
    section(
      'Each job gets one card here, updated as it moves; progress and task failures go in its thread. `/dwm watches` lists the subscriptions, `/dwm unwatch` stops them.',
    ),
    context(`Set up by ${userMention(userId)}`),
    actions([stopButton(sub)], `watch-sub-${sub.id}`),
  ]);
}

/** Stops one subscription (its creator or an admin, checked at click time): no id to copy. */
function stopButton(s: Subscription): ButtonElement {
  return button('Stop this watch', WATCH_ACTIONS.unsubscribe, {
    value: s.id,
    style: 'danger',
    confirm: confirmDialog(
      'Stop this watch?',
      `Job notifications for site ${s.siteId} (${statusesText(s.statuses)}) will stop in this channel. Messages already posted stay.`,
      'Stop',
      'Cancel',
      'danger',
    ),
  });
}

export function watchIssuesMessage(issues: ValidationIssue[]): Message {
  const lines = issues.slice(0, 10).map((i) => `• ${esc(truncate(i.field, 40))}: ${esc(i.message)}`);
  if (issues.length > 10) lines.push(`…and ${issues.length - 10} more.`);
  return message(`Couldn't watch jobs: ${esc(issues[0]?.message ?? 'invalid options')}`, [
    section(`:warning: *Couldn't watch jobs*\n${lines.join('\n')}`),
    section(
      `Usage: ${code('/dwm watch [site:<site id>] [status:completed,error] [content:prefix*] [mode:all|failures]')}, or \`/dwm watch\` alone for a form.`,
    ),
  ]);
}

export function unwatchedMessage(
  removed: Subscription[],
  refusedOthers: Subscription[],
  admins: string,
  channelId: string,
): Message {
  const blocks: Block[] = [];
  if (removed.length === 0 && refusedOthers.length === 0) {
    return message('This channel has no matching subscription.', [
      section(
        `${channelMention(channelId)} has no matching job subscription. See them with \`/dwm watches\`.`,
      ),
    ]);
  }
  if (removed.length) {
    blocks.push(
      section(
        `:white_check_mark: Stopped ${removed.length} subscription${removed.length === 1 ? '' : 's'} in ${channelMention(channelId)}:\n${removed
          .slice(0, 10)
          .map((s) => `• ${filtersText(s)}`)
          .join('\n')}${removed.length > 10 ? `\n…and ${removed.length - 10} more.` : ''}`,
      ),
    );
  }
  if (refusedOthers.length) {
    blocks.push(
      section(
        `:lock: *Only admins can remove subscriptions someone else created.* Kept ${refusedOthers.length}:\n${refusedOthers
          .slice(0, 10)
          .map((s) => `• ${filtersText(s)} (by ${userMention(s.createdBy)})`)
          .join('\n')}`,
      ),
      section(`Ask ${admins} or the person who created it.`),
    );
  }
  const text = removed.length
    ? `Stopped ${removed.length} subscription(s).`
    : 'Only admins can remove subscriptions someone else created.';
  return message(text, blocks);
}

/** Page size of `/dwm watches` (each subscription is a section + an actions block). */
export const WATCHES_PAGE = 20;

/**
 * Who reads a `/dwm watches` list. Managing a subscription someone else created is admin-only, so
 * Resume/Unsubscribe are rendered only where the reader may use them: an admin alone, or a
 * member on their own subscriptions. A list shared in the channel has no such buttons (any member
 * could click them) and names the command instead. The click is checked again (`mayManage`).
 */
export interface WatchesViewer {
  audience: Audience;
  userId: string;
}

/** `a` for a shared list's page buttons (the page re-renders for everyone, not for the clicker). */
export const SHARED_PAGE_SUFFIX = ':all';

/** The channel's subscriptions: paused first, with who created them and the buttons. */
export function watchesMessage(
  subs: Subscription[],
  channelId: string,
  page: number,
  viewer: WatchesViewer,
  outages: ReadonlyArray<{ siteId: string; sinceMs: number; reason: string }> = [],
): Message {
  if (subs.length === 0) {
    return message('This channel watches no jobs.', [
      section(
        `${channelMention(channelId)} watches no jobs. Start with \`/dwm watch\` (a form) or ${code('/dwm watch site:<site id>')}.`,
      ),
    ]);
  }
  const sorted = [...subs].sort(
    (a, b) => Number(!!b.paused) - Number(!!a.paused) || a.createdAt.localeCompare(b.createdAt),
  );
  const pages = Math.ceil(sorted.length / WATCHES_PAGE);
  const p = Math.min(Math.max(0, page), pages - 1);
  const shown = sorted.slice(p * WATCHES_PAGE, (p + 1) * WATCHES_PAGE);
  const paused = subs.filter((s) => s.paused).length;
  const blocks: Block[] = [
    section(
      `*${subs.length} job subscription${subs.length === 1 ? '' : 's'} in ${channelMention(channelId)}*${paused ? ` · :double_vertical_bar: ${paused} paused` : ''}`,
    ),
  ];
  if (outages.length) blocks.push(section(outages.slice(0, 5).map(outageLine).join('\n')));
  for (const s of shown) {
    // Who may stop it gets a button; the id (to type) is shown only in a shared list, where no
    // button is offered (the context line below gives the command with it).
    const manage =
      viewer.audience === 'admin' || (viewer.audience === 'member' && s.createdBy === viewer.userId);
    const created = Date.parse(s.createdAt);
    const when = Number.isFinite(created) ? dateToken(created) : esc(s.createdAt);
    const pausedLine = s.paused
      ? `\n:double_vertical_bar: *Paused* (${code(s.paused.code)}): ${esc(truncate(s.paused.reason, 500))}`
      : '';
    blocks.push(
      section(
        `*${subscriptionName(s)}* · ${modeText(s)}\nCreated by ${userMention(s.createdBy)} ${when}${pausedLine}`,
      ),
    );
    if (!manage) {
      blocks.push(
        context(
          viewer.audience === 'everyone'
            ? `Its creator or an admin can stop it with ${code(`/dwm unwatch id:${s.id}`)}.`
            : 'Only its creator or an admin can resume or stop it.',
        ),
      );
      continue;
    }
    const btns: ButtonElement[] = [];
    if (s.paused) btns.push(button('Resume', WATCH_ACTIONS.resume, { value: s.id, style: 'primary' }));
    btns.push(stopButton(s));
    blocks.push(actions(btns, `watch-sub-${s.id}`));
  }
  const ctx = [`Showing ${p * WATCHES_PAGE + 1}–${p * WATCHES_PAGE + shown.length} of ${subs.length}`];
  blocks.push(context(...ctx));
  if (pages > 1) {
    const tag = viewer.audience === 'everyone' ? SHARED_PAGE_SUFFIX : '';
    const { buttons } = pagingButtons({
      prev: p > 0 ? p - 1 : undefined,
      next: p < pages - 1 ? p + 1 : undefined,
      action: WATCH_ACTIONS.page,
      separator: '-',
      value: (to) => `${to}${tag}`,
    });
    blocks.push(actions(buttons, 'watch-watches-nav'));
  }
  return message(`${subs.length} job subscription(s) in this channel.`, blocks);
}

// ---------------------------------------------------------------------------------------------
// Modal
// ---------------------------------------------------------------------------------------------

const opt = (text: string, value: string): OptionObject => ({ text: plain(text, LIMITS.optionText), value });

export interface WatchModalOptions {
  /** The workspace the form belongs to (in its metadata; checked at submission). */
  workspace: string;
  channelId: string;
  siteIds: string[];
  defaultSiteId: string;
}

/** The `/dwm watch` form: site, statuses, content prefix, mode. The channel rides in metadata. */
export function watchModal(o: WatchModalOptions): ModalView {
  const statusOptions = JOB_STATUS_CODES.map((c) => opt(jobStatus(c).replace(/^:[a-z_]+: /, ''), c));
  const modeOptions = [
    opt('All: broadcast completions and failures', 'all'),
    opt('Failures: broadcast failures only', 'failures'),
  ];
  const blocks: Block[] = [
    section(`Job notifications for ${channelMention(o.channelId)}.`),
    staticSelect(
      WATCH_BLOCK.site,
      'Site',
      o.siteIds.map((s) => ({ text: s, value: s })),
      { initial: o.defaultSiteId },
    ),
    {
      type: 'input',
      block_id: WATCH_BLOCK.statuses,
      optional: true,
      label: plain('Statuses that notify (none checked: every status)'),
      element: { type: 'checkboxes', action_id: 'value', options: statusOptions },
    },
    textInput(WATCH_BLOCK.content, 'Content id', {
      optional: true,
      placeholder: 'trailer-* (a prefix ending in *) or an exact content id',
      maxLength: 201,
    }),
    {
      type: 'input',
      block_id: WATCH_BLOCK.mode,
      label: plain('Mode'),
      element: {
        type: 'radio_buttons',
        action_id: 'value',
        options: modeOptions,
        initial_option: modeOptions[0],
      },
    },
  ];
  return modal(WATCH_MODAL_CALLBACK, 'Watch jobs', blocks, {
    submit: 'Watch',
    privateMetadata: JSON.stringify({ w: o.workspace, c: o.channelId }),
  });
}

export function watchModalDone(sub: Subscription, outcome: CreateOutcome): ModalView {
  const verb = outcome === 'unchanged' ? 'was already watching' : 'is now watching';
  return modal('watch_done', 'Watch jobs', [
    section(`:eyes: ${channelMention(sub.channelId)} ${verb} jobs on site ${code(sub.siteId)}.`),
    section(filtersText(sub)),
  ]);
}

/** "Watch a channel" from Home while the channel and the user's membership are checked. */
export function watchPickCheckingView(): ModalView {
  return modal('watch_checking', 'Watch jobs', [section(':hourglass_flowing_sand: Checking the channel…')]);
}

/**
 * "Watch a channel" from Home refused or failed. `why` is escaped mrkdwn (bot text or
 * `explainError` output).
 */
export function watchPickProblemView(why: string): ModalView {
  return modal('watch_problem', 'Watch jobs', [section(`:warning: ${why}`)], { close: 'Close' });
}

/** Why a member cannot subscribe a channel they are not in. */
export function notInChannelText(channelId: string, admins: string): string {
  return `You are not a member of ${channelMention(channelId)}. Members can set up job notifications only in channels they are in (so cards never go where the requester cannot see them): join the channel and try again, or ask ${admins}.`;
}

// ---------------------------------------------------------------------------------------------
// Direct messages of the runtime
// ---------------------------------------------------------------------------------------------

/** To the creator of a subscription the core paused after a permanent Slack error. */
export function pausedNotice(sub: Subscription, code_: string, reason: string): Message {
  // The notification names the channel: a person with several watches knows which one at once.
  const why = esc(truncate(reason, 500)).replace(/[.\s]+$/, '');
  return message(`Job notifications for ${channelMention(sub.channelId)} are paused: ${why}.`, [
    section(
      `:double_vertical_bar: *Job notifications for ${channelMention(sub.channelId)} are paused.*\n${code_ === SHARED_CHANNEL ? 'The app stopped them' : `Slack answered ${code(code_)}`}: ${esc(truncate(reason, 1000))}`,
    ),
    section(filtersText(sub)),
    section(
      'When the channel is fixed, press *Resume* (or run `/dwm watch` in the channel again). Jobs that change while it is paused are not announced afterwards: `/dwm jobs` lists them.',
    ),
    actions(
      [button('Resume', WATCH_ACTIONS.resume, { value: sub.id, style: 'primary' })],
      `watch-paused-${sub.id}`,
    ),
    context(`Watch of ${subscriptionName(sub)}`),
  ]);
}

/** To the admins when polling of the workspace is paused (auth failure the refresh did not fix). */
export function adminAlertNotice(reason: 'auth' | 'permission', text: string): Message {
  const head =
    reason === 'auth'
      ? ':red_circle: *Job watching is paused: the watermarking service refused the saved credentials.*'
      : ':red_circle: *Job watching is paused: the watermarking account lacks permission.*';
  return message(`Job watching is paused: ${esc(truncate(text, 500))}`, [
    section(`${head}\n${esc(truncate(text, 1500))}`),
    section(
      'Run `/dwm setup` with a valid account id and access key; watching resumes by itself once the new credentials are saved.',
    ),
  ]);
}

export const HOME_WATCH_PICK_CALLBACK = 'home_watch_pick';
export const HOME_WATCH_PICK_BLOCK = 'home_watch_channel';

/**
 * "Watch a channel" from the Home tab (no channel there): pick the channel first; the submission
 * then turns this modal into the watch form (`watchModal`) for that channel.
 */
export function watchPickView(workspace: string): ModalView {
  return modal(
    HOME_WATCH_PICK_CALLBACK,
    'Watch a channel',
    [
      section('Which channel should get job notifications? The bot must be a member of it.'),
      {
        type: 'input',
        block_id: HOME_WATCH_PICK_BLOCK,
        label: plain('Channel'),
        element: {
          type: 'conversations_select',
          action_id: 'value',
          filter: { include: ['public', 'private'], exclude_bot_users: true },
        },
      },
    ],
    // Tagged with its workspace like every form (checked at submission).
    { submit: 'Next', privateMetadata: JSON.stringify({ w: workspace }) },
  );
}
