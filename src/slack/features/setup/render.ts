/**
 * Setup views: the form (with inline-error block ids), "Verifying…", success, read-only env view,
 * and the `/dwm setup status` card. Secrets are never shown back, only masked.
 */

import { canonicalOrigin, shownOrigin } from '../../../api/origins.js';
import type { DoctorReport, DoctorStatus } from '../../../ops/doctor.js';
import type { SetupErrors, SetupField, SetupForm, SetupStatus } from '../../../ops/setup.js';
import type { AppDeps } from '../../deps.js';
import {
  actions,
  type Block,
  button,
  context,
  divider,
  fields,
  header,
  type Message,
  type ModalView,
  message,
  modal,
  section,
  textInput,
} from '../../kit/blocks/blocks.js';
import { code, dateToken, esc, truncate, userMention } from '../../kit/blocks/mrkdwn.js';
import { stepSentenceText } from '../../kit/blocks/next-step.js';
import { encodeValue } from '../../kit/blocks/values.js';
import { fieldErrors } from '../../kit/interactions/form-errors.js';
import { WM_ACTIONS } from '../../shared/wm/values.js';

export const SETUP_CALLBACK = 'drm_setup';
/** The service check's view (no submission: Close only). */
export const SETUP_CHECK_CALLBACK = 'drm_setup_check';

/** Block id of each form field (inline errors are keyed by these). */
export const SETUP_BLOCK: Record<SetupField, string> = {
  siteIds: 'site_ids',
  defaultSite: 'default_site',
  wmAccountId: 'wm_account_id',
  wmAccessKey: 'wm_access_key',
  svcAccountId: 'svc_account_id',
  svcAccountSeq: 'svc_account_seq',
  svcSecretKey: 'svc_secret_key',
  wmBaseUrl: 'wm_base_url',
  svcBaseUrl: 'svc_base_url',
};

/**
 * Inline errors for `response_action: 'errors'`, keyed by block id. With `present` (the block ids
 * of the submitted view), an error of a field the form did not show (a URL shown as text) goes
 * under that part's account id: Slack refuses errors keyed by a block the view does not have.
 */
export function setupInlineErrors(
  errors: SetupErrors,
  present?: ReadonlySet<string>,
): Record<string, string> {
  const moved: SetupErrors = { ...errors };
  if (present) {
    for (const [url, account] of [
      ['wmBaseUrl', 'wmAccountId'],
      ['svcBaseUrl', 'svcAccountId'],
    ] as const) {
      const m = moved[url];
      if (m && !present.has(SETUP_BLOCK[url])) {
        delete moved[url];
        moved[account] = moved[account] ? `${m} ${moved[account]}` : m;
      }
    }
  }
  return fieldErrors(moved, SETUP_BLOCK);
}

export interface SetupFormOptions {
  /** The workspace being set up (the form's metadata: checked at submission). */
  workspace: string;
  /** Non-secret values to fill in. Secret fields are never pre-filled. */
  values?: Partial<SetupForm>;
  /** Masked saved secrets ("••••abcd"): blank keeps them. */
  savedSecrets?: { wmAccessKey?: string; svcSecretKey?: string };
  defaults: {
    wmBaseUrl?: string | undefined;
    svcBaseUrl?: string | undefined;
    /**
     * Every origin the bot may call (the upstream allow-list: the configured base URLs and
     * UPSTREAM_ALLOWED_ORIGINS). With none besides a part's configured URL, the form shows that URL
     * as text instead of a field: an admin cannot send the keys to another host.
     */
    allowed?: readonly string[] | undefined;
  };
  /** Shown on top after a failed live check (mrkdwn lines, already escaped). */
  failure?: string[];
  /** After a failed check: typed secrets were discarded and must be entered again. */
  secretsDiscarded?: boolean;
}

/** The configured URLs and the upstream allow-list, for the form and its check. */
export function setupDefaults(deps: Pick<AppDeps, 'config' | 'api'>) {
  return {
    wmBaseUrl: deps.config.dwmBaseUrl,
    svcBaseUrl: deps.config.serviceApiBaseUrl,
    upstream: deps.api.originPolicy,
    allowed: deps.api.originPolicy?.list(),
  };
}

/**
 * A part's URL in the form. The configured URL (DWM_BASE_URL / SERVICE_API_BASE_URL) is shown as
 * text when the allow-list holds no other origin (nothing else could be accepted); a field only
 * when the operator allowed other hosts (UPSTREAM_ALLOWED_ORIGINS), filled with the URL in use.
 * With no URL at all, the form says who sets it: never an "(optional)" field that refuses blank.
 */
function urlBlocks(part: 'wm' | 'svc', opts: SetupFormOptions): Block[] {
  const wm = part === 'wm';
  const api = wm ? 'Watermarking API' : 'Service API';
  const variable = wm ? 'DWM_BASE_URL' : 'SERVICE_API_BASE_URL';
  const configured = wm ? opts.defaults.wmBaseUrl : opts.defaults.svcBaseUrl;
  const typed = wm ? opts.values?.wmBaseUrl : opts.values?.svcBaseUrl;
  // The other part's configured URL is on the list too, but is not a host for this part.
  const configuredOrigins = new Set(
    [opts.defaults.wmBaseUrl, opts.defaults.svcBaseUrl].map((u) => (u ? canonicalOrigin(u) : null)),
  );
  const others = (opts.defaults.allowed ?? []).filter((o) => !configuredOrigins.has(o)).map(shownOrigin);
  // No allow-list given (a bot built without one): any URL may be typed.
  if (opts.defaults.allowed !== undefined && others.length === 0) {
    if (configured)
      return [context(`${api} URL: ${esc(configured)} (${code(variable)}, set by whoever runs the bot).`)];
    return [
      context(
        `:warning: No ${api} URL yet: whoever runs the bot sets ${code(variable)} (the URL your service provider gives), then restarts it.`,
      ),
    ];
  }
  const allowedText = others.length
    ? ` Allowed hosts: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}${configured ? ` and ${configured}` : ''}.`
    : '';
  return [
    textInput(wm ? SETUP_BLOCK.wmBaseUrl : SETUP_BLOCK.svcBaseUrl, `${api} URL`, {
      initial: typed || configured,
      optional: true,
      hint: configured
        ? `Blank: ${configured}.${allowedText}`
        : `Needed with this API's account, like https://${wm ? 'wm' : 'api'}.example.com.${allowedText}`,
    }),
  ];
}

export function setupFormView(opts: SetupFormOptions): ModalView {
  const v = opts.values ?? {};
  const blocks: Block[] = [];
  if (opts.failure?.length) {
    blocks.push(
      section(`:warning: *The credentials did not verify. Nothing was saved.*\n${opts.failure.join('\n')}`),
    );
    if (opts.secretsDiscarded) {
      blocks.push(context('For safety the keys you typed were not kept: enter them again.'));
    }
    blocks.push(divider());
  } else {
    blocks.push(
      section(
        'Connect this workspace to the service. The keys are checked live, then stored encrypted; they are never shown again (only the last 4 characters).',
      ),
    );
  }
  const keepHint = (saved?: string) =>
    saved ? `Leave blank to keep the saved key (${saved}).` : 'Shown while you type; never shown back.';
  blocks.push(
    textInput(SETUP_BLOCK.siteIds, 'Site ids', {
      initial: v.siteIds,
      placeholder: 'AB12, CD34',
      hint: 'Comma-separated, 4 letters or digits each.',
    }),
    textInput(SETUP_BLOCK.defaultSite, 'Default site', {
      initial: v.defaultSite,
      optional: true,
      hint: 'Used when a command names no site:. Blank: the first site id.',
    }),
    header('Watermarking API'),
    textInput(SETUP_BLOCK.wmAccountId, 'Account id', { initial: v.wmAccountId, optional: true }),
    textInput(SETUP_BLOCK.wmAccessKey, 'Access key', {
      optional: true,
      hint: keepHint(opts.savedSecrets?.wmAccessKey),
    }),
    ...urlBlocks('wm', opts),
    header('Service API'),
    textInput(SETUP_BLOCK.svcAccountId, 'Account id', { initial: v.svcAccountId, optional: true }),
    textInput(SETUP_BLOCK.svcAccountSeq, 'Account sequence', { initial: v.svcAccountSeq, optional: true }),
    textInput(SETUP_BLOCK.svcSecretKey, 'Secret key', {
      optional: true,
      hint: keepHint(opts.savedSecrets?.svcSecretKey),
    }),
    ...urlBlocks('svc', opts),
  );
  // Saved credentials can be checked as they are (what is typed here is not used by the check).
  if (opts.savedSecrets?.wmAccessKey || opts.savedSecrets?.svcSecretKey) {
    blocks.push(divider(), ...checkBlocks(opts.workspace));
  }
  return modal(SETUP_CALLBACK, 'Service setup', blocks, {
    submit: 'Verify and save',
    privateMetadata: JSON.stringify({ w: opts.workspace }),
  });
}

export function verifyingView(): ModalView {
  return modal(SETUP_CALLBACK, 'Service setup', [
    section(
      ':hourglass_flowing_sand: *Verifying…* Checking the credentials with the service. This takes a few seconds.',
    ),
  ]);
}

function statusBlocks(s: SetupStatus, timeZone: string, showMasked: boolean): Block[] {
  const pairs: Array<[string, string]> = [
    ['Sites', s.siteIds.map((x) => code(x)).join(', ')],
    ['Default site', s.defaultSiteId ? code(s.defaultSiteId) : '—'],
  ];
  if (s.watermarking) {
    pairs.push(['Watermarking account', code(s.watermarking.accountId)]);
    if (showMasked) pairs.push(['Access key', code(s.watermarking.accessKey)]);
    pairs.push(['Watermarking URL', esc(s.watermarking.baseUrl)]);
  } else pairs.push(['Watermarking', 'not configured']);
  if (s.service) {
    pairs.push(['Service API account', `${code(s.service.accountId)} (seq ${code(s.service.accountSeq)})`]);
    if (showMasked) pairs.push(['Secret key', code(s.service.secretKey)]);
    pairs.push(['Service API URL', esc(s.service.baseUrl)]);
  } else pairs.push(['Service API', 'not configured']);
  const blocks: Block[] = [section(undefined, { fields: fields(pairs) })];
  const ctxParts: string[] = [];
  if (s.source === 'env') ctxParts.push('From the environment (read-only: change it in the deployment).');
  if (s.verifiedAt) {
    // A <!date^…> token: each reader of a shared card sees their own zone; the
    // fallback text is in the asker's zone.
    const at = Date.parse(s.verifiedAt);
    const when = Number.isFinite(at) ? dateToken(at, timeZone) : esc(s.verifiedAt);
    ctxParts.push(`Last verified ${when}${s.savedBy ? ` by ${userMention(s.savedBy)}` : ''}.`);
  }
  if (ctxParts.length) blocks.push(context(...ctxParts));
  if (s.pollingPausedReason) {
    blocks.push(
      section(
        `:double_vertical_bar: Job polling is paused: ${esc(s.pollingPausedReason)}. Run ${code('/dwm setup')} to fix it.`,
      ),
    );
  }
  return blocks;
}

export function setupSuccessView(
  s: SetupStatus,
  timeZone: string,
  notes: readonly string[] = [],
  workspace?: string,
): ModalView {
  return modal(
    SETUP_CALLBACK,
    'Service setup',
    [
      section(':white_check_mark: *Verified and saved.*'),
      ...notes.map((n) => section(`:information_source: ${esc(truncate(n, 2900))}`)),
      ...statusBlocks(s, timeZone, true),
      ...checkBlocks(s.configured ? workspace : undefined),
    ],
    {
      close: 'Done',
    },
  );
}

/** Env credentials: shown masked, nothing to submit. */
export function setupReadOnlyView(s: SetupStatus, timeZone: string, workspace?: string): ModalView {
  return modal(
    SETUP_CALLBACK,
    'Service setup',
    [
      section(
        ':lock: *This workspace uses credentials from the environment.* They can only be changed in the deployment (DWM_* and SERVICE_API_* variables).',
      ),
      ...statusBlocks(s, timeZone, true),
      ...checkBlocks(s.configured ? workspace : undefined),
    ],
    { close: 'Close' },
  );
}

/**
 * "Check the service": the read-only check (src/ops/doctor.ts) of the saved credentials, for
 * admins (the button is declared admin-only in ./check.ts; members never see these views).
 */
function checkBlocks(workspace: string | undefined): Block[] {
  if (!workspace) return [];
  return [
    actions(
      [button('Check the service', WM_ACTIONS.setupCheck, { value: encodeValue({ w: workspace }) })],
      'setup_check',
    ),
    context(
      'Reads the service with the saved credentials (never changes anything) and says which settings it needs, as `npm run doctor` does.',
    ),
  ];
}

const CHECK_ICON: Record<DoctorStatus, string> = {
  ok: ':white_check_mark:',
  info: ':information_source:',
  setting: ':warning:',
  failed: ':x:',
  'not-observed': ':grey_question:',
};

/** The check running (pushed at once, updated with the report). */
export function serviceCheckingView(): ModalView {
  return modal(
    SETUP_CHECK_CALLBACK,
    'Service check',
    [section(':hourglass_flowing_sand: Checking the service (read-only)…')],
    {
      close: 'Close',
    },
  );
}

/** The service check view when there is no report to show (bot-authored text). */
export function serviceCheckNoticeView(text: string): ModalView {
  return modal(SETUP_CHECK_CALLBACK, 'Service check', [section(`:information_source: ${esc(text)}`)], {
    close: 'Close',
  });
}

/** The report: one section per open point, then the .env lines to add. */
export function serviceCheckView(report: DoctorReport): ModalView {
  const blocks: Block[] = [
    section(
      report.needsAction
        ? ':warning: *The service needs attention:* see the points marked below.'
        : ':white_check_mark: *Nothing to set:* the bot reads this service as it answers.',
    ),
  ];
  for (const f of report.findings) {
    blocks.push(
      section(
        `${CHECK_ICON[f.status]} *${esc(f.point)}*\n${esc(truncate(`${f.reading}${f.next ? `. ${stepSentenceText(f.next)}` : ''}`, 2700))}`,
      ),
    );
  }
  if (report.envLines.length) {
    blocks.push(
      section(
        `*Add to the deployment's .env (then restart):*\n\`\`\`${esc(truncate(report.envLines.join('\n'), 2800))}\`\`\``,
      ),
    );
  }
  blocks.push(context('Only GET calls were made. The same check runs from a shell with `npm run doctor`.'));
  return modal(SETUP_CHECK_CALLBACK, 'Service check', blocks, { close: 'Close' });
}

/** `/dwm setup status`. Masked keys only for admins (the reply is always ephemeral). */
export function setupStatusMessage(
  s: SetupStatus,
  timeZone: string,
  isAdmin: boolean,
  command = '/dwm',
): Message {
  if (!s.configured) {
    return message('The service is not set up for this workspace.', [
      section(
        `:grey_question: *The service is not set up for this workspace.*\nAn admin can run ${code(`${command} setup`)}.`,
      ),
      ...(s.pollingPausedReason ? [section(`Job polling is paused: ${esc(s.pollingPausedReason)}.`)] : []),
    ]);
  }
  return message(
    `The service is set up for ${s.siteIds.length === 1 ? 'site' : 'sites'} ${esc(s.siteIds.join(', '))}.`,
    [header('Service setup'), ...statusBlocks(s, timeZone, isAdmin)],
  );
}

/** `setup status share`: refused, like `/drm settings share`. */
export function setupShareRefused(command = '/dwm'): Message {
  return message('The setup is never posted in a channel.', [
    section(
      `:lock: *The setup is never posted in a channel*, not even with the keys masked. Run ${code(`${command} setup status`)} without \`share\`: only you will see it.`,
    ),
  ]);
}
