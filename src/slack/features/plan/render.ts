/**
 * `/drm plan`: the latest service status change request as a card, the request modal and the
 * result card. Pure renderers.
 */
import type { PlanAction, PlanRequestView, PlanState, UnreadLatest } from '../../../ops/service/plan.js';
import { PLAN_MESSAGE_MAX } from '../../../ops/service/plan.js';
import {
  actions,
  type Block,
  type ButtonElement,
  button,
  confirmDialog,
  context,
  fields,
  header,
  type Message,
  type ModalView,
  message,
  modal,
  section,
  staticSelect,
  textInput,
} from '../../kit/blocks/blocks.js';
import { code, esc, truncate, userMention } from '../../kit/blocks/mrkdwn.js';
import { requestStatus } from '../../kit/blocks/status.js';
import { type Audience, mayRender } from '../../kit/context/roles/admission.js';
import {
  type CardMeta,
  cardContext,
  encodeValue,
  SVC_ACTIONS,
  SVC_VIEWS,
  timeText,
} from '../../shared/svc/values.js';

const BUTTON_TEXT: Record<PlanAction, string> = {
  trial: 'Request trial extension',
  resume: 'Request resume',
  suspend: 'Request suspension',
  cancel: 'Cancel request',
};

/** What an action does, after "Only admins can". */
const VERB: Record<PlanAction, string> = {
  trial: 'request a trial extension',
  resume: 'request a resume',
  suspend: 'request a suspension',
  cancel: 'cancel the pending request',
};

/** Exactly what each button will do, for its confirm dialog. */
function confirmFor(a: PlanAction, state: PlanState): ReturnType<typeof confirmDialog> {
  // The confirm text is plain_text (Slack's rule for confirm dialogs): no mrkdwn, no escaping;
  // the builder neutralises control, bidi and zero-width characters.
  const what = `${state.serviceLabel} on site ${state.siteId}`;
  switch (a) {
    case 'trial':
      return confirmDialog(
        'Request a trial extension?',
        `Opens a form to ask the provider to extend the trial of ${what}. Nothing is sent until you submit it.`,
        'Open form',
        'Back',
        'primary',
      );
    case 'resume':
      return confirmDialog(
        'Request a resume?',
        `Opens a form to ask the provider to resume ${what}. Nothing is sent until you submit it.`,
        'Open form',
        'Back',
      );
    case 'suspend':
      return confirmDialog(
        'Request a suspension?',
        `Opens a form to ask the provider to SUSPEND ${what}. Once approved, licenses stop being issued for it.`,
        'Open form',
        'Back',
        'danger',
      );
    default:
      return confirmDialog(
        'Cancel the pending request?',
        `Cancels request ${state.latest?.requestId ?? ''} (${(state.latest?.typeLabel ?? '').toLowerCase()}) for ${what}. The provider will not act on it. This cannot be undone.`,
        'Cancel request',
        'Keep it',
        'danger',
      );
  }
}

export interface PlanCardOptions extends CardMeta {
  workspace: string;
  timeZone: string;
  /** A line above the card, e.g. "Trial extension requested." (bot-authored mrkdwn). */
  banner?: string;
  /**
   * Who reads the card: admin-only buttons are rendered for an admin alone; a member sees which
   * actions are for admins; a card shared in the channel names the admin commands instead.
   */
  audience: Audience;
}

function requestFields(r: PlanRequestView, tz: string): string[] {
  const pairs: Array<[string, string]> = [
    ['Type', esc(r.typeLabel)],
    ['Status', requestStatus(r.status ?? 'ST001')],
    ['Requested by', esc(r.registeredBy) || '—'],
    ['Requested', timeText(r.regTime, tz)],
  ];
  if (r.updateTime) pairs.push(['Updated', timeText(r.updateTime, tz)]);
  pairs.push(['Request', code(r.requestId)]);
  pairs.push(['Message', r.message ? esc(truncate(r.message, 500)) : '—']);
  return fields(pairs);
}

/** The plan card: latest request (or none) and the actions possible now. */
export function planCard(state: PlanState, o: PlanCardOptions): Message {
  const blocks: Block[] = [];
  if (o.banner) blocks.push(section(o.banner));
  blocks.push(header(`Plan · ${state.serviceLabel} · ${state.siteId}`));
  const r = state.latest;
  if (r) {
    blocks.push(
      section(`*Latest request:* ${requestStatus(r.status ?? 'ST001')}`, {
        fields: requestFields(r, o.timeZone),
      }),
    );
  } else if (state.unreadLatest) {
    blocks.push(section(`No earlier request could be read (${unreadText(state.unreadLatest)}).`));
  } else {
    blocks.push(section(`No plan request for ${esc(state.serviceLabel)} on site ${code(state.siteId)} yet.`));
  }
  blocks.push(context(cardContext({ ...o, siteId: state.siteId })));

  const buttons: ButtonElement[] = [];
  const blocked = new Map<string, string[]>();
  const adminOnly: PlanAction[] = [];
  for (const a of state.actions) {
    if (!a.allowed) {
      if (a.reason && a.action !== 'cancel')
        blocked.set(a.reason, [...(blocked.get(a.reason) ?? []), a.label]);
      continue;
    }
    if (!mayRender(o.audience, a.role)) {
      adminOnly.push(a.action);
      continue;
    }
    const value = encodeValue({
      w: o.workspace,
      s: state.siteId,
      v: state.serviceCode,
      a: a.action,
      ...(a.action === 'cancel' && r ? { r: r.requestId } : {}),
    });
    const label = `${BUTTON_TEXT[a.action]}${a.role === 'admin' ? ' (admin)' : ''}`;
    const style =
      a.action === 'trial'
        ? 'primary'
        : a.action === 'suspend' || a.action === 'cancel'
          ? 'danger'
          : undefined;
    buttons.push(
      button(
        label,
        a.action === 'cancel' ? SVC_ACTIONS.planCancel : `${SVC_ACTIONS.planRequest}_${a.action}`,
        {
          value,
          ...(style ? { style } : {}),
          confirm: confirmFor(a.action, state),
        },
      ),
    );
  }
  // Main first, destructive last: trial, resume, suspend, cancel (PLAN_ACTION_ORDER).
  if (buttons.length) blocks.push(actions(buttons, 'svc_plan_actions'));
  if (adminOnly.length) {
    const svcWord = state.serviceCode === 'PD002' ? 'fwm' : 'drm';
    blocks.push(
      context(
        o.audience === 'everyone'
          ? `Admins can run ${adminOnly.map((a) => code(`/drm plan ${a} ${svcWord} site:${state.siteId}`)).join(' or ')}.`
          : `Only admins can ${adminOnly.map((a) => VERB[a]).join(' or ')}.`,
      ),
    );
  }
  if (blocked.size) {
    const lines = [...blocked].map(([reason, labels]) => `${labels.join(', ')}: ${esc(reason)}`);
    blocks.push(context(`Not possible now: ${lines.join(' · ')}`));
  }
  const text = esc(
    r
      ? `${state.serviceLabel} on ${state.siteId}: the latest request (${r.typeLabel.toLowerCase()}) is ${r.statusLabel.toLowerCase()}`
      : state.unreadLatest
        ? `${state.serviceLabel} on ${state.siteId}: no earlier request could be read`
        : `${state.serviceLabel} on ${state.siteId}: no plan request yet`,
  ).concat('.');
  return message(text, blocks);
}

export const PLAN_BLOCK = { service: 'svc_plan_service', message: 'svc_plan_message' } as const;

const MODAL_TITLE: Record<Exclude<PlanAction, 'cancel'>, string> = {
  trial: 'Trial extension',
  resume: 'Resume service',
  suspend: 'Suspend service',
};

/** The request form: service (prefilled) and an optional message. */
export function planRequestModal(
  action: Exclude<PlanAction, 'cancel'>,
  siteId: string,
  serviceCode: 'PD001' | 'PD002',
  privateMetadata: string,
): ModalView {
  const explain: Record<typeof action, string> = {
    trial: `Ask the provider to extend the trial on site ${code(siteId)}.`,
    resume: `Ask the provider to resume the service on site ${code(siteId)}.`,
    suspend: `:warning: Ask the provider to *suspend* the service on site ${code(siteId)}. Once approved, licenses stop being issued for it.`,
  };
  return modal(
    SVC_VIEWS.planRequest,
    MODAL_TITLE[action],
    [
      section(explain[action]),
      staticSelect(
        PLAN_BLOCK.service,
        'Service',
        [
          { text: 'DRM', value: 'PD001' },
          { text: 'Forensic watermarking (FWM)', value: 'PD002' },
        ],
        { initial: serviceCode },
      ),
      textInput(PLAN_BLOCK.message, 'Message to the provider', {
        optional: true,
        multiline: true,
        maxLength: PLAN_MESSAGE_MAX,
        placeholder: 'Why, and until when (optional)',
      }),
    ],
    { submit: action === 'suspend' ? 'Request suspension' : 'Send request', privateMetadata },
  );
}

/** What was done, for the banner of the result card (bot-authored). */
/** "CODE: message" of a latest request that could not be read, escaped and cut. */
function unreadText(u: UnreadLatest): string {
  return `${esc(truncate(u.code, 40))}: ${esc(truncate(u.message, 300))}`;
}

export function planBanner(action: PlanAction, userId: string, r: PlanRequestView): string {
  if (action === 'cancel') {
    return `:no_entry_sign: ${userMention(userId)} cancelled request ${code(r.requestId)}.`;
  }
  const unread = r.earlierUnread ? ` No earlier request could be read (${unreadText(r.earlierUnread)}).` : '';
  return `:white_check_mark: ${userMention(userId)} sent a ${esc(r.typeLabel.toLowerCase())} request (${code(r.requestId)}); it is pending until the provider handles it.${unread}`;
}
