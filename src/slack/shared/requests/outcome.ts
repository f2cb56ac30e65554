/**
 * Request outcomes (src/notices/requests.ts) rendered for Slack: the DM to the person who asked and
 * the card the request was made on, rewritten in place. Shared by the plan feature (trial
 * extension, suspension, resume) and the sites feature (additional site): both provide these as
 * their `notifyRenderers` (the runtime merges them; it is the same pair of functions, so the
 * order does not matter). Pure: plain data in, a `Message` within Block Kit limits out; every
 * service or user string is escaped; times are `<!date^…>` tokens (each reader sees their own zone;
 * `zone` formats the fallback).
 */
import { REQUEST_STATUS } from '../../../api/codes.js';
import type { RequestOutcomeNotice } from '../../../notices/types.js';
import { requestOutcomeText } from '../../../ops/notify-text.js';
import { type Block, context, header, type Message, message, section } from '../../kit/blocks/blocks.js';
import { code, dateToken, esc, userMention } from '../../kit/blocks/mrkdwn.js';
import type { NotifyRenderers } from '../../kit/runtime/notify-render.js';

const ICON: Record<RequestOutcomeNotice['outcome'], string> = {
  approved: ':white_check_mark:',
  cancelled: ':no_entry_sign:',
  superseded: ':arrows_counterclockwise:',
  changed: ':information_source:',
};

/** "trial extension request `RG1` for DRM on site `AB12`" / "additional site request `7` (Movies EU)". */
function what(n: RequestOutcomeNotice): string {
  if (n.kind === 'site') {
    return `additional site request ${code(n.requestId)}${n.siteName ? ` (${esc(n.siteName)})` : ''}`;
  }
  return `${esc(n.requestLabel.toLowerCase())} request ${code(n.requestId)}${n.serviceLabel ? ` for ${esc(n.serviceLabel)}` : ''} on site ${code(n.siteId)}`;
}

/** The outcome in one sentence, with who/where for a cancellation. */
function outcomeLine(n: RequestOutcomeNotice, whose: 'your' | 'the'): string {
  const subject = `${whose === 'your' ? 'Your' : 'The'} ${what(n)}`;
  switch (n.outcome) {
    case 'approved':
      return `${ICON.approved} ${subject} was *approved*${n.kind === 'site' && n.siteId ? `: the new site id is ${code(n.siteId)}` : ''}.`;
    case 'cancelled':
      if (n.cancelledBy) {
        return `${ICON.cancelled} ${subject} was *cancelled* by ${userMention(n.cancelledBy)} through the bot.`;
      }
      return n.kind === 'site'
        ? `${ICON.cancelled} ${subject} was *refused or cancelled* by the provider.`
        : `${ICON.cancelled} ${subject} was *cancelled outside the bot* (on the provider's console or through the Service API), not by anyone here.`;
    case 'superseded':
      return `${ICON.superseded} ${subject} was *replaced* by a newer request${n.supersededBy ? ` (${code(n.supersededBy)})` : ''}; its final status can no longer be read.`;
    default:
      return `${ICON.changed} ${subject} has the status ${statusText(n)}, which the bot does not know as pending, approved or cancelled; it is no longer followed here.`;
  }
}

/** The status in words ("Approved"), never its code; a status the bot does not know shows as given. */
function statusText(n: RequestOutcomeNotice): string {
  if (n.status in REQUEST_STATUS)
    return esc(n.statusLabel || REQUEST_STATUS[n.status as keyof typeof REQUEST_STATUS]);
  return n.statusLabel ? esc(n.statusLabel) : `unknown (${code(n.status)})`;
}

/**
 * Who asked and when, when it was decided: the facts the outcome line does not give (request, site,
 * service, type and outcome are in it), in one context line rather than fields repeating it.
 */
function whoAndWhen(n: RequestOutcomeNotice, zone: string): string {
  // Date tokens: the card usually sits in a shared channel, so each reader sees their own zone
  // (`zone`, the requester's, is only the fallback text).
  return `Asked by ${userMention(n.requestedBy)} ${dateToken(n.requestedAt, zone)} · ${
    n.outcome === 'superseded' ? 'noticed' : 'decided'
  } ${dateToken(n.decidedAt, zone)}.`;
}

function nextStep(n: RequestOutcomeNotice): string {
  if (n.kind === 'site') return 'See every additional-site request with `/drm site requests`.';
  return `See the plan now with \`/drm plan ${n.serviceCode === 'PD002' ? 'fwm' : 'drm'} site:${n.siteId.replace(/[^A-Za-z0-9_-]/g, '')}\`.`;
}

/** The DM to the requester. */
export function requestOutcomeDm(n: RequestOutcomeNotice, zone: string): Message {
  const blocks: Block[] = [section(outcomeLine(n, 'your')), context(`${whoAndWhen(n, zone)} ${nextStep(n)}`)];
  return message(esc(requestOutcomeText(n)), blocks);
}

/** The card the request was made on, rewritten with the outcome (no buttons: it is decided). */
export function requestOutcomeCard(n: RequestOutcomeNotice, zone: string): Message {
  const title =
    n.kind === 'site'
      ? 'Additional site request'
      : `Plan · ${n.serviceLabel ?? n.serviceCode ?? 'request'} · ${n.siteId}`;
  const blocks: Block[] = [
    header(title),
    section(outcomeLine(n, 'the')),
    context(`${whoAndWhen(n, zone)} ${nextStep(n)}`),
  ];
  const text = esc(requestOutcomeText(n).replace(/^Your /, 'The '));
  return message(text, blocks);
}

/** The pair both request features provide as `Feature.notifyRenderers`. */
export const requestOutcomeRenderers: Pick<NotifyRenderers, 'requestOutcomeDm' | 'requestOutcomeCard'> = {
  requestOutcomeDm,
  requestOutcomeCard,
};
