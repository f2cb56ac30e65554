/**
 * Error rendering per the style guide, three parts: what failed / why (the service's code and
 * message when it gave one) / what to do next. Unexpected errors show a reference id that is also
 * in the log. Never a stack trace or a secret: only codes, the service's own message, field names.
 */
import { ERROR_CONDITION_TEXT, type ErrorCondition, errorCondition } from '../../../api/error-codes.js';
import {
  AuthError,
  apiOfEndpoint,
  isBusy,
  isUnavailable,
  PermissionError,
  type ProtocolAdvice,
  ProtocolError,
  refusalExplanation,
  ServiceError,
  TransportError,
  ValidationError,
} from '../../../api/errors.js';
import {
  CredentialsUnreadableError,
  NotConfiguredError,
  SiteNotConfiguredError,
} from '../../../ops/workspace.js';
import { StoreNewerDocumentError, StoreUnavailableError } from '../../../store/errors.js';
import { classifyDeliveryError } from '../../../watch/delivery-errors.js';
import { LIMIT_SETTINGS, type LimitedKind, WorkspaceLimitError } from '../../../watch/limits.js';
import { type Block, context, type Message, message, section } from '../blocks/blocks.js';
import { code, esc, truncate } from '../blocks/mrkdwn.js';
import { issueText, nextStepCommand } from '../blocks/next-step.js';
import { ParseError } from '../commands/parse.js';

export interface ErrorExplanation {
  /** Why it failed, mrkdwn. */
  why: string;
  /** What to do next, mrkdwn. */
  next: string;
  /** Not a known failure: log it with the reference id and show the id. */
  unexpected: boolean;
}

export interface ErrorRenderOptions {
  /** Reference id of the request (in the log). */
  refId: string;
  /** Who can run setup / admin commands, mrkdwn ("<@U1>, <@U2>" or "a workspace admin"). */
  admins?: string;
  /** The slash command in use, for "run /dwm setup" hints. Default /dwm. */
  command?: string;
}

/**
 * The service calls that change something (POST/PUT, src/api/service.ts and watermarking.ts), by
 * endpoint: what to tell a user whose change may or may not have been made. Creations must be
 * checked before trying again (a second member, a second request); setting a value or a state
 * again changes nothing more.
 */
const WRITE_NEXT: Readonly<Record<string, string>> = {
  'svc.requestAdditionalSite': checkFirst('/drm site requests'),
  'svc.createSubMember': checkFirst('/drm members'),
  'svc.registerStatusRequest': checkFirst('/drm plan'),
  'wm.registerRecipients': checkFirst('/dwm recipients'),
  'svc.updateSubMember': repeatable('/drm members'),
  'svc.cancelStatusRequest': repeatable('/drm plan'),
  'svc.updateSettings': repeatable('/drm settings'),
  'wm.modifyRecipient': repeatable('/dwm recipients'),
  'svc.resetSubMemberPassword':
    'Trying again is safe: at worst the member gets a second password reset e-mail.',
  'svc.uploadFpsCert':
    'The service cannot show whether it was done: ask the service team before sending it again.',
};

/** The endpoints `outcomeUnknown` knows as changes (a test binds them to the API clients). */
export const WRITE_ENDPOINTS: readonly string[] = Object.keys(WRITE_NEXT);

function checkFirst(command: string): string {
  return `Check with ${code(command)} whether it was done before trying again, so it is not done twice.`;
}

function repeatable(command: string): string {
  return `Check with ${code(command)} whether it was done; trying again is safe (making the same change twice changes nothing more).`;
}

/**
 * True when a change sent to the service failed in a way that leaves its outcome unknown: the
 * request may have been processed (a 5xx, a timeout or a reset after sending) or the service
 * answered in a form that could not be read. The user must check before trying again, or the
 * change may be made twice (a second member, a second site request).
 */
export function outcomeUnknown(err: unknown): boolean {
  if (!(err instanceof TransportError || err instanceof ProtocolError)) return false;
  if (!Object.hasOwn(WRITE_NEXT, err.endpoint)) return false;
  return err instanceof ProtocolError || err.ambiguous;
}

/** What a person can check after an answer that is not the API's, in words (before escaping). */
function protocolAdviceText(a: ProtocolAdvice): string {
  switch (a.reason) {
    case 'no-answer':
      return `It sent no answer (${a.what}) where its data was expected.`;
    case 'web-page':
      return `It sent a web page${a.title ? ` titled "${a.title}"` : ''} instead of its API's answer: an admin checks the base URL in ${nextStepCommand(a.next)}, and whether a proxy or a login page stands between the bot and the service.`;
  }
}

export function explainError(err: unknown, opts: ErrorRenderOptions): ErrorExplanation {
  const cmd = opts.command ?? '/dwm';
  const admins = opts.admins ?? 'a workspace admin';
  if (outcomeUnknown(err)) {
    const e = err as TransportError | ProtocolError;
    const detail =
      e instanceof ProtocolError
        ? 'The service answered in an unexpected format'
        : e.status
          ? `The service answered HTTP ${e.status}`
          : 'The service could not be reached or did not answer in time (network error or timeout)';
    return {
      why: `${detail}, so the bot cannot tell whether the change was made.${
        e instanceof ProtocolError && e.advice ? ` ${esc(protocolAdviceText(e.advice))}` : ''
      }`,
      next: `${WRITE_NEXT[e.endpoint] as string}${
        e instanceof ProtocolError ? ` If it keeps happening, report reference ${code(opts.refId)}.` : ''
      }`,
      unexpected: e instanceof ProtocolError,
    };
  }
  if (err instanceof ParseError) {
    return {
      why: esc(err.message),
      next: err.usage ? `Usage: ${code(err.usage)}` : `See ${code(`${cmd} help`)}.`,
      unexpected: false,
    };
  }
  if (err instanceof NotConfiguredError) {
    return {
      why: esc(err.message),
      next: `An admin connects it with ${code(`${cmd} setup`)} (site ids and service keys, checked live): if that is not you, ask ${admins}.`,
      unexpected: false,
    };
  }
  if (err instanceof SiteNotConfiguredError) {
    return {
      why: `Site ${code(err.siteId)} is not configured for this workspace.`,
      next: `Use one of ${err.configured.map((s) => code(s)).join(', ')}, or ask ${admins} to add it with ${code(`${cmd} setup`)}.`,
      unexpected: false,
    };
  }
  if (err instanceof ValidationError) {
    const lines = err.issues.slice(0, 10).map((i) => `• ${esc(i.field)}: ${esc(issueText(i))}`);
    if (err.issues.length > 10) lines.push(`…and ${err.issues.length - 10} more.`);
    return { why: lines.join('\n'), next: 'Fix the values above and try again.', unexpected: false };
  }
  if (err instanceof ServiceError) {
    const condition = errorCondition(err);
    const plainWords = condition ? `\n${esc(ERROR_CONDITION_TEXT[condition])}` : '';
    const said = err.serviceMessage.trim();
    return {
      // A service may send its code with an empty message: then the code stands alone.
      why: `The service answered ${code(err.code)}${said ? `: ${esc(truncate(said, 500))}` : '.'}${plainWords}`,
      next:
        condition === 'internal'
          ? 'Try again in a few minutes.'
          : condition
            ? 'Check the values and try again.'
            : `Check the values and try again; if it keeps failing, give the service team the code ${code(err.code)}.`,
      unexpected: false,
    };
  }
  if (err instanceof AuthError) {
    return {
      why: `The service refused the saved credentials (they are wrong, expired or were changed). ${esc(truncate(refusalExplanation(err), 1200))}`,
      next: `Ask ${admins} to run ${code(`${cmd} setup`)} and enter the current credentials.`,
      unexpected: false,
    };
  }
  if (err instanceof PermissionError) {
    return {
      why: `The service account does not have permission for this operation (permissions are per API). ${esc(truncate(refusalExplanation(err), 1200))}`,
      next: `Ask the service administrator to grant the account access, or ask ${admins} to configure another account with ${code(`${cmd} setup`)}.`,
      unexpected: false,
    };
  }
  if (err instanceof TransportError && err.status !== undefined && err.status >= 300 && err.status < 400) {
    // Redirects are never followed (src/api/http.ts): trying again changes nothing.
    return {
      why: `The service answered with a redirect (HTTP ${err.status}): its address seems to have changed, and the bot does not follow it to another address.`,
      next: `Ask ${admins} to check the service base URL with ${code(`${cmd} setup`)}.`,
      unexpected: false,
    };
  }
  if (err instanceof TransportError) {
    const detail =
      err.status === 429
        ? 'The service is busy (rate limited).'
        : err.status
          ? `The service answered HTTP ${err.status}.`
          : 'The service could not be reached (network error or timeout).';
    // The service said how long to wait (Retry-After): "in a minute" would be too soon.
    const waitMin = err.retryAfterMs !== undefined ? Math.ceil(err.retryAfterMs / 60_000) : 1;
    return {
      why: `${detail} Tried ${err.attempts} time${err.attempts === 1 ? '' : 's'}.`,
      next: `${waitMin > 1 ? `The service asked to wait ${waitMin} minutes: try again after that.` : 'Try again in a minute.'} Nothing was changed unless a message says so.`,
      unexpected: false,
    };
  }
  if (err instanceof CredentialsUnreadableError) {
    return {
      why: `This workspace's saved service credentials cannot be read: they were encrypted with key id ${code(err.kid ?? 'unknown')}, which the bot's ENCRYPTION_KEY does not match.`,
      next: `Ask the team that runs the bot to restore that key (or add it to ENCRYPTION_KEYS_PREVIOUS); or ${admins} can run ${code(`${cmd} setup`)} and enter the credentials again, which replaces them.`,
      unexpected: false,
    };
  }
  if (err instanceof StoreNewerDocumentError) {
    return {
      why: 'A newer version of the bot saved this while the bot is being upgraded, and this copy of the bot leaves it as it is.',
      next: 'Try again in a few minutes, once the upgrade is done.',
      unexpected: false,
    };
  }
  if (err instanceof WorkspaceLimitError) {
    const how = LIMIT_NEXT[err.kind];
    return {
      why: esc(err.why),
      next: how ? `${how}, or ask the bot's operator to raise ${LIMIT_SETTINGS[err.kind]}.` : esc(err.next),
      unexpected: false,
    };
  }
  if (err instanceof StoreUnavailableError) {
    return {
      why: "The bot's storage is unavailable right now, so the request was not run.",
      next: 'Try again in a minute. If it keeps happening, tell the team that runs the bot (its store is down).',
      unexpected: false,
    };
  }
  if (err instanceof ProtocolError) {
    return {
      why: `The service answered in an unexpected format (${code(err.endpoint)}, field ${code(err.field)}).${
        err.advice ? ` ${esc(protocolAdviceText(err.advice))}` : ''
      }`,
      next: `Try again; if it keeps happening, report reference ${code(opts.refId)}.`,
      unexpected: true,
    };
  }
  const slack = slackFailure(err, admins);
  if (slack) return slack;
  return {
    why: 'Something unexpected went wrong on our side.',
    next: `Try again; if it keeps happening, report reference ${code(opts.refId)}.`,
    unexpected: true,
  };
}

/**
 * A Slack Web API call of the request that failed on Slack's side, read with the watcher's one
 * classifier of @slack/web-api's errors (classifyDeliveryError): said as Slack's failure, not as
 * an error of the bot's with a reference to report. Other Slack refusals (invalid_blocks...) stay
 * unexpected.
 */
function slackFailure(err: unknown, admins: string): ErrorExplanation | undefined {
  const c = classifyDeliveryError(err);
  if (c.type === 'rate' || c.type === 'transient') {
    return {
      why: "A call to Slack failed on Slack's side (a Slack error, a rate limit or a network problem).",
      next: 'Try again in a minute.',
      unexpected: false,
    };
  }
  if (c.type === 'unknown') return undefined;
  switch (c.code) {
    case 'expired_trigger_id':
    case 'exchanged_trigger_id':
      return {
        why: 'Slack did not open the form in time (a form must open within 3 seconds of the command or click).',
        next: 'Run the command again.',
        unexpected: false,
      };
    case 'token_revoked':
    case 'account_inactive':
    case 'invalid_auth':
    case 'not_authed':
      return {
        why: "The app's Slack token no longer works (the app was uninstalled, or its token was revoked).",
        next: `Ask ${admins} to install the app again.`,
        unexpected: false,
      };
    default:
      return undefined;
  }
}

/** A workspace cap reached (src/watch/limits.ts): what to do, with the command that does it. */
const LIMIT_NEXT: Partial<Record<LimitedKind, string>> = {
  watches:
    'Remove one that is no longer needed with /dwm unwatch in its channel (/dwm watches lists a channel’s)',
  alerts: 'Stop some that are no longer needed with /drm alerts stop in their channel',
  digests: 'Turn one off that is no longer needed with /dwm digest off in its channel',
};

/** Lookups that found nothing: not failures. What the service's "not found" means, and where to look. */
const NOT_FOUND_NEXT: Partial<Record<ErrorCondition, string>> = {
  jobNotFound: `${code('/dwm jobs')} lists recent jobs.`,
  recipientNotFound: `${code('/dwm recipients')} searches the registered recipients.`,
  requestNotFound: `${code('/drm plan')} shows the latest request of each product.`,
  memberNotFound: `${code('/drm members')} lists the sub-members.`,
  siteNotFound: `${code('/drm sites')} lists the sites of the account.`,
};

/** The service's code and message, for support: the last (context) line of a short reply. */
export function serviceCodeLine(err: ServiceError): string {
  const said = err.serviceMessage.trim();
  return `Service code ${code(err.code)}${said ? `: ${esc(truncate(said, 200))}` : ''}`;
}

/**
 * A lookup that found nothing, in at most 3 lines: what was not found in words, where to look,
 * and the service's code last in a context line (for support). `words` is mrkdwn.
 */
export function notFoundMessage(words: string, next: string, err?: ServiceError): Message {
  const blocks: Block[] = [section(`:mag: ${words} ${next}`)];
  if (err) blocks.push(context(serviceCodeLine(err)));
  return message(`${words.replace(/[`*_]/g, '')} ${next.replace(/[`*_]/g, '')}`, blocks);
}

const SERVICE_NAMES: Readonly<Record<'wm' | 'svc', string>> = {
  wm: 'the watermarking service',
  svc: 'the DRM service',
};

/**
 * The short forms of two everyday answers, or undefined:
 * - a lookup that found nothing (the service's "not found" conditions): `notFoundMessage`;
 * - a read that could not reach the service: "Can't reach the watermarking service right now, so
 *   `/dwm jobs` couldn't run. Try again in a minute." (no retry count, no "nothing was changed":
 *   a read changes nothing). A change keeps its precise wording (explainError).
 */
function shortForm(what: string, err: unknown): Message | undefined {
  if (err instanceof ServiceError) {
    const condition = errorCondition(err);
    const next = condition ? NOT_FOUND_NEXT[condition] : undefined;
    if (condition && next) return notFoundMessage(esc(ERROR_CONDITION_TEXT[condition]), next, err);
    return undefined;
  }
  if (err instanceof TransportError && !Object.hasOwn(WRITE_NEXT, err.endpoint) && isUnavailable(err)) {
    const api = apiOfEndpoint(err.endpoint);
    const service = api ? SERVICE_NAMES[api] : 'the service';
    const command = what.replace(/ failed$/, '');
    const didnt = command.startsWith('/')
      ? `${code(command)} couldn't run`
      : command.startsWith("Couldn't ")
        ? `the bot couldn't ${esc(command.slice("Couldn't ".length).replace(/\.$/, ''))}`
        : "that couldn't be done";
    const waitMin = err.retryAfterMs !== undefined ? Math.ceil(err.retryAfterMs / 60_000) : 1;
    const when =
      waitMin > 1
        ? `The service asked to wait ${waitMin} minutes: try again after that.`
        : 'Try again in a minute.';
    const head = isBusy(err)
      ? `${service.replace(/^t/, 'T')} is busy right now`
      : `Can't reach ${service} right now`;
    const text = `${head}, so ${didnt}. ${when}`;
    const blocks: Block[] = [section(`:warning: ${text}`)];
    if (err.status !== undefined) blocks.push(context(`The service answered HTTP ${err.status}.`));
    return message(text.replace(/`/g, ''), blocks);
  }
  return undefined;
}

/** Blocks for a failure: ":warning: *<what> failed*", why, next, reference context. */
export function errorBlocks(what: string, err: unknown, opts: ErrorRenderOptions): Block[] {
  const short = shortForm(what, err);
  if (short?.blocks) return short.blocks;
  const e = explainError(err, opts);
  // A typo or a bad value is not an outage: it is said as a correction to make, with no reference
  // id (the style guide gives reference ids to unexpected errors only).
  const usage = err instanceof ParseError || err instanceof ValidationError;
  const title = usage ? ':pencil2: *Nothing was run: check what you typed*' : `:warning: *${esc(what)}*`;
  const blocks = [section(`${title}\n${e.why}`), section(e.next)];
  if (e.unexpected) blocks.push(context(`Reference ${code(opts.refId)}`));
  return blocks;
}

/** A whole error message (fallback text + blocks). `what` is plain text, e.g. "Couldn't list jobs". */
export function renderError(what: string, err: unknown, opts: ErrorRenderOptions): Message {
  const short = shortForm(what, err);
  if (short) return short;
  const e = explainError(err, opts);
  const usage = err instanceof ParseError || err instanceof ValidationError;
  const lead = usage
    ? `Check the command (${what.replace(/ failed$/, '').replace(/^Couldn't (?:read|run) /, '')})`
    : what;
  return message(`${lead}: ${stripMrkdwn(e.why)}`, errorBlocks(what, err, opts));
}

/** A refusal for a user without the role: says who can do it. */
export function renderRefused(what: string, admins: string): Message {
  return message(`Only admins can ${what}.`, [
    section(`:lock: *Only admins can ${esc(what)}.*`),
    section(`Ask ${admins} to do it, or to make you an admin.`),
  ]);
}

function stripMrkdwn(s: string): string {
  return s.replace(/[`*]/g, '').split('\n')[0] ?? '';
}
