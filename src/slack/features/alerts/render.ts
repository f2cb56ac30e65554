/**
 * Renderers of the license-failure alerts: the channel alert itself (first post, in-place updates
 * while the spike lasts, its "recovered" state) and the recovery reply in its thread
 * (`licenseAlert`, exported to the notify runtime through `Feature.notifyRenderers`), plus the
 * replies of `/drm alerts`, `/drm alerts watch`, `/drm alerts stop` and the thresholds form.
 *
 * Pure: plain data in, a Message / view out. Service strings (content ids, device names, error
 * codes) go through `code()` / `esc()`; times are `<!date^…>` tokens with a fallback in the
 * reader's zone. The license error codes have no documented table (the Service API spec says the
 * list "is not shown"), so a code is shown as the service sent it.
 */
import { explainLicenseError } from '../../../api/error-codes.js';
import type {
  AlertSubscription,
  AlertThresholds,
  LicenseAlert,
  Ranked,
  WindowStats,
} from '../../../notices/types.js';
import type {
  AlertListItem,
  MuteAlertResult,
  StopAlertsResult,
  SubscribeAlertsResult,
} from '../../../ops/alerts.js';
import { ALERT_LIMITS, licenseWindowDays } from '../../../ops/alerts.js';
import { alertText } from '../../../ops/notify-text.js';
import {
  actions,
  type Block,
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
import { channelMention, code, dateToken, esc, truncate, userMention } from '../../kit/blocks/mrkdwn.js';
import { encodeValue } from '../../kit/blocks/values.js';
import { RUN_SUGGESTION_ACTION } from '../../kit/commands/help.js';

export const ALERTS_MODAL_CALLBACK = 'alerts_watch';
export const ALERTS_BLOCK = {
  site: 'alerts_site',
  ratio: 'alerts_ratio',
  min: 'alerts_min',
  window: 'alerts_window',
} as const;

/** Ranked entries shown per list (the watcher keeps at most 5). */
const TOP_SHOWN = 5;
/** A ranked key is cut to this many characters (ids are short; a hostile one is not). */
const KEY_MAX = 80;

/** "33%" / "4.5%" (one decimal under 10 %). */
export function pct(ratio: number): string {
  const p = Math.max(0, ratio) * 100;
  return `${p >= 10 || Number.isInteger(p) ? Math.round(p) : p.toFixed(1)}%`;
}

function windowWords(minutes: number): string {
  if (minutes % 60 === 0 && minutes >= 60) {
    const h = minutes / 60;
    return `${h} hour${h === 1 ? '' : 's'}`;
  }
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** "15-minute" / "2-hour" (a window length as an adjective). */
function windowAdjective(minutes: number): string {
  return minutes % 60 === 0 && minutes >= 60 ? `${minutes / 60}-hour` : `${minutes}-minute`;
}

/** "fail ratio 20% · at least 20 requests · 15-minute window" (bot-authored, no escaping needed). */
export function thresholdsText(t: AlertThresholds): string {
  return `fail ratio ${t.ratioPct}% · at least ${t.minRequests} request${t.minRequests === 1 ? '' : 's'} · ${windowAdjective(t.windowMinutes)} window`;
}

function rankedLines(list: Ranked[], show: (key: string) => string): string {
  if (list.length === 0) return '_none_';
  return list
    .slice(0, TOP_SHOWN)
    .map((r) => `${show(truncate(r.key, KEY_MAX))} × ${r.count}`)
    .join('\n');
}

/** "13 of 40 failed (33%)", "at least …" when the read stopped at the page cap. */
function countsText(s: WindowStats): string {
  return `${s.truncated ? 'at least ' : ''}${s.failed} of ${s.total} failed (${pct(s.ratio)})`;
}

/**
 * A license error code in words. The Service API does not document the codes ("not shown"), so
 * the bot knows none by itself: words come from LICENSE_ERROR_CODES; a code not given there is
 * said to be unknown, with the code for support.
 */
function licenseCodeWords(k: string): string {
  const meaning = explainLicenseError(k);
  return meaning ? `${esc(meaning)} (${code(k)})` : `unknown code ${code(k)}`;
}

function statsFields(s: WindowStats): string[] {
  return fields([
    ['Top error codes', rankedLines(s.topErrors, licenseCodeWords)],
    ['Most affected content', rankedLines(s.topContent, (k) => code(k))],
    ['Most affected devices', rankedLines(s.topDevices, (k) => esc(k))],
  ]);
}

/** Action id of the alert's Stop button (./buttons.ts). */
export const ALERT_STOP_ACTION = 'alerts_stop';
/** Action id of the alert's Mute 1 h button (./buttons.ts). */
export const ALERT_MUTE_ACTION = 'alerts_mute';

/**
 * One footer line: site, thresholds and where to see who set it up. The creator is not named: a
 * `<@U…>` mention in a channel message notifies that person, and an alert is posted for every
 * spike (the same choice as the job cards). `/drm alerts` (only the caller sees it) names them.
 */
function footer(sub: AlertSubscription, lead: string): Block {
  return context(
    `${lead}Site ${code(sub.siteId)} · threshold ${sub.ratioPct}% of at least ${sub.minRequests} requests in ${windowWords(sub.windowMinutes)} · ${code('/drm alerts')}`,
  );
}

/**
 * Show failed licenses (the window's failed license requests: `/drm licenses site:… status:fail
 * from:… to:…` run for the one who clicks, as if typed), Mute 1 h and Stop (the channel's alerts
 * for this site; its creator or an admin, the ops check who clicks).
 *
 * The license list (Service API endpoint 11) filters by `from`/`to` DAYS (`YYYY-MM-DD`) only, no
 * time of day: the button asks for the days the alert's check read (licenseWindowDays: the
 * window's UTC days with a day of margin each side, as the zone of the service's days is not
 * shown), so every failure of the window is in the list, with the rest of those days around it.
 */
function alertActions(sub: AlertSubscription, s: WindowStats): Block {
  const site = sub.siteId.replace(/[^A-Za-z0-9]/g, '');
  const days = licenseWindowDays(s.fromMs, s.toMs);
  const value = encodeValue({ w: sub.workspace, c: sub.channelId, s: sub.siteId });
  return actions([
    button('Show failed licenses', `${RUN_SUGGESTION_ACTION}_0`, {
      value: encodeValue({
        w: sub.workspace,
        t: `/drm licenses site:${site} status:fail from:${days.from} to:${days.to}`,
      }),
      style: 'primary',
    }),
    button('Mute 1 h', ALERT_MUTE_ACTION, { value }),
    button('Stop these alerts', ALERT_STOP_ACTION, {
      value,
      style: 'danger',
      confirm: confirmDialog(
        'Stop these alerts?',
        `License-failure alerts for site ${sub.siteId} stop in this channel. Only the person who set them up or an admin can do this.`,
        'Stop',
        'Cancel',
        'danger',
      ),
    }),
  ]);
}

/**
 * The alert (first post and in-place updates; `state: 'recovered'` is its final form) or the
 * recovery reply in its thread. `zone`: the fallback zone of the time tokens.
 */
export function licenseAlertMessage(alert: LicenseAlert, zone: string): Message {
  const sub = alert.subscription;
  const s = alert.stats;
  const site = code(s.siteId || sub.siteId);
  const win = `in the last ${windowWords(sub.windowMinutes)}`;
  const truncNote = s.truncated
    ? [
        context(
          'The license list was longer than the bot reads per check, so the counts are a floor (part of the window was not read).',
        ),
      ]
    : [];
  if (alert.kind === 'recovery') {
    return message(esc(alertText(alert)), [
      section(
        `:white_check_mark: *License failures on site ${site} are back under ${sub.ratioPct}%*: ${countsText(s)} ${win}.`,
      ),
      section(
        `The spike started ${dateToken(alert.startedAt, zone)}, peaked at ${pct(alert.peakRatio)} and ended ${dateToken(alert.recoveredAt, zone)}.`,
      ),
      ...truncNote,
      footer(sub, ''),
    ]);
  }
  if (alert.state === 'stopped') {
    const by = alert.stoppedBy ? ` by ${userMention(alert.stoppedBy)}` : '';
    const at = alert.stoppedAt !== undefined ? ` ${dateToken(alert.stoppedAt, zone)}` : '';
    return message(`Alerts stopped: ${esc(alertText(alert))}`, [
      header(`:no_bell: Alerts stopped: license failures on site ${s.siteId || sub.siteId}`),
      section(
        `:no_bell: *Alerts stopped*${by}${at}; this message is no longer updated. Last check: ${countsText(s)} ${win} (threshold ${sub.ratioPct}%).`,
      ),
      section(undefined, { fields: statsFields(s) }),
      context(
        `Started ${dateToken(alert.startedAt, zone)} · peak ${pct(alert.peakRatio)} · last checked ${dateToken(s.toMs, zone)}`,
      ),
      ...truncNote,
      context(
        `Site ${code(sub.siteId)} · ${thresholdsText(sub)} · ${code(`/drm alerts watch site:${sub.siteId}`)} sets them up again`,
      ),
    ]);
  }
  const recovered = alert.state === 'recovered';
  const lead = recovered
    ? `:white_check_mark: *Recovered: license failures on site ${site} are back under ${sub.ratioPct}%*: ${countsText(s)} ${win}. The spike peaked at ${pct(alert.peakRatio)}.`
    : `:rotating_light: *License failures on site ${site}: ${countsText(s)} ${win}* (threshold ${sub.ratioPct}%).`;
  const when = recovered
    ? `Started ${dateToken(alert.startedAt, zone)} · recovered ${dateToken(alert.recoveredAt ?? s.toMs, zone)} · `
    : `Started ${dateToken(alert.startedAt, zone)} · peak ${pct(alert.peakRatio)} · checked ${dateToken(s.toMs, zone)} · `;
  const muted =
    !recovered && alert.mutedUntil !== undefined
      ? [
          context(
            `:no_bell: Muted until ${dateToken(alert.mutedUntil, zone)}${alert.mutedBy ? ` by ${userMention(alert.mutedBy)}` : ''}: not updated until then.`,
          ),
        ]
      : [];
  return message(esc(alertText(alert)), [
    section(lead),
    section(undefined, { fields: statsFields(s) }),
    ...truncNote,
    ...muted,
    footer(sub, when),
    ...(recovered ? [] : [alertActions(sub, s)]),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Command replies
// ---------------------------------------------------------------------------------------------

export function subscribedMessage(r: SubscribeAlertsResult, userId: string): Message {
  const sub = r.subscription;
  const resumed =
    r.status === 'updated' && r.previous !== undefined && thresholdsText(r.previous) === thresholdsText(sub);
  const verb = resumed
    ? 'gets again'
    : { created: 'now gets', updated: 'changed the thresholds of', unchanged: 'already gets' }[r.status];
  const lead = `:bell: ${channelMention(sub.channelId)} ${verb} license-failure alerts for site ${code(sub.siteId)}.`;
  const blocks: Block[] = [section(lead), section(`*Thresholds*: ${thresholdsText(sub)}`)];
  if (r.previous && !resumed) blocks.push(context(`Was: ${thresholdsText(r.previous)}`));
  blocks.push(
    section(
      `One alert is posted when the fail ratio reaches ${sub.ratioPct}%; it is updated while the spike lasts and a reply in its thread says when it is over. ${code('/drm alerts')} lists this channel's alerts, ${code('/drm alerts stop')} stops them.`,
    ),
    context(`By ${userMention(userId)}`),
  );
  return message(`This channel ${verb} license-failure alerts for site ${esc(sub.siteId)}.`, blocks);
}

function itemLine(item: AlertListItem, zone: string): string {
  const s = item.subscription;
  const parts = [`• Site ${code(s.siteId)}: ${thresholdsText(s)} · by ${userMention(s.createdBy)}`];
  if (s.paused) {
    parts.push(
      `\n   :double_vertical_bar: *Paused*: Slack refused to post here (${code(s.paused.code)}); run ${code(`/drm alerts watch site:${s.siteId}`)} to resume.`,
    );
  }
  const st = item.state;
  if (st?.mutedUntil !== undefined) {
    parts.push(`\n   :no_bell: muted until ${dateToken(st.mutedUntil, zone)} (then it resumes)`);
  }
  if (st?.spikeOpen && st.spikeStartedAt !== undefined) {
    parts.push(`\n   :rotating_light: failing now, since ${dateToken(st.spikeStartedAt, zone)}`);
  }
  if (st?.last && st.lastCheckedAt !== undefined) {
    parts.push(
      st.last.truncated
        ? `\n   last check ${dateToken(st.lastCheckedAt, zone)}: :warning: *window not fully read*: the license list was longer than the bot reads per check, so at least ${st.last.failed} of ${st.last.total} failed (${pct(st.last.ratio)}); a shorter window reads less`
        : `\n   last check ${dateToken(st.lastCheckedAt, zone)}: ${st.last.failed} of ${st.last.total} failed (${pct(st.last.ratio)})`,
    );
  }
  return parts.join('');
}

/** `/drm alerts`: the channel's subscriptions, problems (failing, paused) first. */
export function alertsListMessage(channelId: string, items: AlertListItem[], zone: string): Message {
  if (items.length === 0) {
    return message('This channel gets no license-failure alerts.', [
      section(`${channelMention(channelId)} gets no license-failure alerts.`),
      section(
        `Run ${code('/drm alerts watch')} here to set them up (a form), or ${code('/drm alerts watch site:<site id> ratio:20% min:20 window:15')}.`,
      ),
    ]);
  }
  const rank = (i: AlertListItem) => (i.state?.spikeOpen ? 0 : i.subscription.paused ? 1 : 2);
  const sorted = [...items].sort((a, b) => rank(a) - rank(b));
  const shown = sorted.slice(0, 40);
  const blocks: Block[] = [
    section(
      `:bell: *License-failure alerts in ${channelMention(channelId)}* (${items.length} site${items.length === 1 ? '' : 's'})`,
    ),
    ...shown.map((i) => section(itemLine(i, zone))),
  ];
  if (sorted.length > shown.length) blocks.push(context(`…and ${sorted.length - shown.length} more.`));
  blocks.push(
    context(
      `${code('/drm alerts watch site:<site id> ratio:PCT min:N window:MIN')} changes thresholds · ${code('/drm alerts stop [site:<site id>]')} stops`,
    ),
  );
  return message(`${items.length} license-failure alert subscription(s) in this channel.`, blocks);
}

/** `/drm alerts stop`: what was removed, what was kept (someone else's). */
export function stoppedMessage(channelId: string, r: StopAlertsResult, admins: string): Message {
  if (r.removed.length === 0 && r.refused.length === 0) {
    return message('This channel has no matching license-failure alerts.', [
      section(
        `${channelMention(channelId)} has no matching license-failure alerts. See them with ${code('/drm alerts')}.`,
      ),
    ]);
  }
  const blocks: Block[] = [];
  if (r.removed.length > 0) {
    blocks.push(
      section(
        `:white_check_mark: Stopped the license-failure alerts of ${r.removed
          .slice(0, 20)
          .map((s) => `site ${code(s.siteId)}`)
          .join(
            ', ',
          )}${r.removed.length > 20 ? ` and ${r.removed.length - 20} more` : ''} in ${channelMention(channelId)}.`,
      ),
    );
  }
  if (r.refused.length > 0) {
    blocks.push(
      section(
        `:lock: *Kept ${r.refused.length === 1 ? 'one subscription' : `${r.refused.length} subscriptions`} set up by another member*: ${r.refused
          .slice(0, 20)
          .map((s) => `site ${code(s.siteId)} (by ${userMention(s.createdBy)})`)
          .join(', ')}. Only admins can stop alerts someone else set up.`,
      ),
      section(`Ask the person who set it up, or ${admins}.`),
    );
  }
  const text =
    r.removed.length > 0
      ? `Stopped ${r.removed.length} license-failure alert subscription(s) in this channel.`
      : 'Only admins can stop alerts someone else set up.';
  return message(text, blocks);
}

/** The alert's Mute 1 h button: muted until when, refused (someone else's), or no such alert. */
export function mutedMessage(
  channelId: string,
  siteId: string,
  r: MuteAlertResult,
  admins: string,
  zone: string,
): Message {
  const site = code(siteId);
  if (r.status === 'muted' && r.until !== undefined) {
    return message(
      `Muted the license-failure alert for site ${esc(siteId)} for one hour; it resumes by itself.`,
      [
        section(
          `:no_bell: Muted the license-failure alert for site ${site} in ${channelMention(channelId)} until ${dateToken(r.until, zone)}: it is not updated or posted again until then, and resumes by itself.`,
        ),
      ],
    );
  }
  if (r.status === 'refused') {
    const by = r.subscription ? ` (set up by ${userMention(r.subscription.createdBy)})` : '';
    return message('Only the person who set up this alert or an admin can mute it.', [
      section(
        `:lock: Not muted: only the person who set up the site ${site} alerts${by} or an admin can mute them. Ask them, or ${admins}.`,
      ),
    ]);
  }
  return message(`This channel no longer gets license-failure alerts for site ${esc(siteId)}.`, [
    section(
      `${channelMention(channelId)} no longer gets license-failure alerts for site ${site}, so there is nothing to mute. See ${code('/drm alerts')}.`,
    ),
  ]);
}

// ---------------------------------------------------------------------------------------------
// The form
// ---------------------------------------------------------------------------------------------

export interface AlertsFormInput {
  workspace: string;
  channelId: string;
  siteId: string;
  siteIds: string[];
  ratioPct: number;
  minRequests: number;
  windowMinutes: number;
}

/** The thresholds form (`/drm alerts watch` without thresholds), filled with the current values. */
export function alertsModal(f: AlertsFormInput): ModalView {
  const L = ALERT_LIMITS;
  const sites = f.siteIds.includes(f.siteId) ? f.siteIds : [f.siteId, ...f.siteIds];
  const blocks: Block[] = [
    section(
      `License-failure alerts for ${channelMention(f.channelId)}: one alert when the fail ratio of a site's license requests reaches the threshold, updated while it lasts.`,
    ),
    staticSelect(
      ALERTS_BLOCK.site,
      'Site',
      sites.map((s) => ({ text: s, value: s })),
      { initial: f.siteId },
    ),
    textInput(ALERTS_BLOCK.ratio, 'Fail ratio that alerts (%)', {
      initial: String(f.ratioPct),
      placeholder: '20',
      hint: `A percentage from ${L.ratioPct.min} to ${L.ratioPct.max}.`,
      maxLength: 6,
    }),
    textInput(ALERTS_BLOCK.min, 'Fewest requests in the window before it counts', {
      initial: String(f.minRequests),
      placeholder: '20',
      hint: `A whole number from ${L.minRequests.min} to ${L.minRequests.max}: a few failures of very few requests do not alert.`,
      maxLength: 6,
    }),
    textInput(ALERTS_BLOCK.window, 'Window (minutes)', {
      initial: String(f.windowMinutes),
      placeholder: '15',
      hint: `Whole minutes from ${L.windowMinutes.min} to ${L.windowMinutes.max}.`,
      maxLength: 5,
    }),
  ];
  return modal(ALERTS_MODAL_CALLBACK, 'License alerts', blocks, {
    submit: 'Save',
    privateMetadata: JSON.stringify({ w: f.workspace, c: f.channelId }),
  });
}

export function alertsSavingView(): ModalView {
  return modal('alerts_saving', 'License alerts', [section(':hourglass_flowing_sand: Saving…')]);
}

/** The form's outcome, in the same modal. */
export function alertsResultView(m: Message): ModalView {
  return modal('alerts_result', 'License alerts', (m.blocks ?? [section(esc(m.text))]).slice(0, 20), {
    close: 'Close',
  });
}
