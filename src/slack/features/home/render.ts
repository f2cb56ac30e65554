/**
 * The App Home tab: a pure function of the gathered data (src/ops/home.ts). Problems first
 * (setup/polling warnings, then failures of the last 24 h), then jobs in flight, sites, channel
 * watches and the latest plan request. Every list shows what fits with its total and "and N
 * more"; the whole view stays within Slack's 100 blocks whatever the data size (lines are packed
 * into sections of at most 3000 characters, each list has a line cap, and `fitView` guards the end).
 */
import { SERVICE_CODE } from '../../../api/codes.js';
import type { Job } from '../../../api/types.js';
import type { HomeData, Part } from '../../../ops/home.js';
import type { NotifyHomeSummary } from '../../../ops/notify-home.js';
import type { Subscription } from '../../../watch/types.js';
import {
  actions,
  type Block,
  button,
  context,
  divider,
  fitView,
  header,
  LIMITS,
  section,
} from '../../kit/blocks/blocks.js';
import { outageLine } from '../../kit/blocks/cards.js';
import { channelMention, code, dateToken, esc, truncate, userMention } from '../../kit/blocks/mrkdwn.js';
import { nextStepClause } from '../../kit/blocks/next-step.js';
import { jobStatus, productStatus, requestStatus } from '../../kit/blocks/status.js';
import type { HomeEntryPoint } from '../../kit/interactions/home-actions.js';
import { notifyBlocks } from './render-notify.js';

/**
 * Action ids of the Home buttons (./buttons.ts declares them): one per entry point of
 * kit/interactions/home-actions.ts (the command behind it is declared by the feature owning it), and Refresh.
 */
export const HOME_ACTIONS = {
  register: 'home_register',
  watch: 'home_watch',
  trial: 'home_plan_trial',
  setup: 'home_setup',
  refresh: 'home_refresh',
} as const satisfies Record<HomeEntryPoint | 'refresh', string>;
export type HomeAction = keyof typeof HOME_ACTIONS;

export interface HomeView {
  type: 'home';
  blocks: Block[];
  callback_id?: string;
  private_metadata?: string;
}

export interface HomeRenderOptions {
  isAdmin: boolean;
  /** The viewer's IANA time zone (fallback text of date tokens). */
  timeZone?: string;
  /** Lines shown per list (default 15). */
  maxLines?: number;
  /** The slash command named in hints (default /dwm). */
  command?: string;
  /** The viewer's pending requests, alert subscriptions and digests (./render-notify.ts). */
  notify?: NotifyHomeSummary;
  /** Who can set the bot up, mrkdwn ("<@U1>, <@U2>"): named to a member while nothing is set up. */
  admins?: string;
}

/** Longest line of a list (a hostile 10,000-character content id stays one short line). */
const LINE_MAX = 280;

/** Pack lines into sections of at most 3000 characters (lines are cut at LINE_MAX first). */
export function linesToSections(lines: string[]): Block[] {
  const out: Block[] = [];
  let cur = '';
  for (const raw of lines) {
    const line = truncate(raw, LINE_MAX);
    if (cur && cur.length + 1 + line.length > LIMITS.sectionText) {
      out.push(section(cur));
      cur = '';
    }
    cur = cur ? `${cur}\n${line}` : line;
  }
  if (cur) out.push(section(cur));
  return out;
}

/** A list: its lines (capped), with "and N more" and how to see them. */
function list(lines: string[], total: number, max: number, more: string): Block[] {
  const shown = lines.slice(0, max);
  const blocks = linesToSections(shown);
  const hidden = Math.max(0, total - shown.length);
  if (hidden > 0) blocks.push(context(`…and ${hidden} more. ${more}`));
  return blocks;
}

/** Why a part is unavailable, with the step that fixes it ("not configured: run /dwm setup"). */
const reasonText = (p: Extract<Part<unknown>, { ok: false }>): string =>
  p.next ? `${p.reason}: ${nextStepClause(p.next)}` : p.reason;

const unavailable = (what: string, p: Extract<Part<unknown>, { ok: false }>): Block =>
  section(`:warning: ${what} unavailable: ${esc(reasonText(p))}.`);

function jobLine(j: Job & { siteId: string }, tz: string): string {
  const when = j.updateTime.epochMs ?? j.regTime.epochMs;
  return `${jobStatus(j.status)} · job ${code(j.jobId)} · ${esc(truncate(j.contentId, 40))} · site ${code(j.siteId)}${when !== null ? ` · ${dateToken(when, tz)}` : ''}`;
}

function watchLine(s: Subscription): string {
  const statuses = s.statuses.length ? s.statuses.map((x) => jobStatus(x)).join(', ') : 'every status';
  const content = s.content !== undefined ? ` · content ${code(truncate(s.content, 80))}` : '';
  const mode = s.mode === 'failures' ? ' · failures only' : '';
  const paused = s.paused ? ` · :double_vertical_bar: paused: ${esc(truncate(s.paused.reason, 120))}` : '';
  return `${channelMention(s.channelId)} · site ${code(s.siteId)} · ${statuses}${content}${mode}${paused}`;
}

function buttons(data: HomeData, opts: HomeRenderOptions): Block {
  const site =
    data.connection.ok && data.connection.value.defaultSiteId ? data.connection.value.defaultSiteId : '';
  const els = [
    button('Register recipients', HOME_ACTIONS.register, {
      style: 'primary',
      value: JSON.stringify({ site }),
    }),
    button('Watch a channel', HOME_ACTIONS.watch, { value: JSON.stringify({ site }) }),
    button('Request trial extension', HOME_ACTIONS.trial, { value: JSON.stringify({ site }) }),
    button('Refresh', HOME_ACTIONS.refresh),
  ];
  if (opts.isAdmin) els.push(button('Setup', HOME_ACTIONS.setup));
  return actions(els, 'home_actions');
}

function connectionBlocks(data: HomeData, opts: HomeRenderOptions, tz: string): Block[] {
  const cmd = opts.command ?? '/dwm';
  const c = data.connection;
  if (!c.ok) return [unavailable('Connection status', c)];
  const s = c.value;
  if (!s.configured) {
    // The app's first words: what to do next, for the one who can (an admin) and for everyone
    // else (who to ask), never a bare "not set up".
    return [
      section(
        opts.isAdmin
          ? `:wave: *Welcome to DRM ChatOps. Start here:* press *Setup* (or run ${code(`${cmd} setup`)}) and enter the site ids and the service keys; they are checked live, then stored encrypted. Then, in a channel: ${code('/invite @drm-chatops')} and ${code(`${cmd} watch`)}.`
          : `:wave: *DRM ChatOps is not set up in this workspace yet.* Ask ${opts.admins ?? 'a workspace admin'} to run ${code(`${cmd} setup`)}; until then the commands have nothing to show.`,
      ),
    ];
  }
  const parts = [
    `:link: *Connected* · ${s.siteIds.length === 1 ? 'site' : 'sites'} ${truncate(
      s.siteIds.map((x) => code(x)).join(', '),
      1500,
    )}`,
  ];
  if (s.defaultSiteId && s.siteIds.length > 1) parts.push(`default ${code(s.defaultSiteId)}`);
  const apis = [s.watermarking ? 'Watermarking' : '', s.service ? 'Service API' : ''].filter(Boolean);
  parts.push(apis.join(' + '));
  const blocks: Block[] = [];
  if (s.pollingPausedReason) {
    blocks.push(
      section(
        `:double_vertical_bar: *Job polling is paused:* ${esc(truncate(s.pollingPausedReason, 500))}. ${opts.isAdmin ? 'Run' : 'An admin can run'} ${code(`${cmd} setup`)} to fix it.`,
      ),
    );
  }
  blocks.push(section(parts.join(' · ')));
  const ctx: string[] = [];
  if (s.source === 'env') ctx.push('Credentials from the environment (read-only).');
  if (s.verifiedAt) {
    const at = Date.parse(s.verifiedAt);
    if (Number.isFinite(at))
      ctx.push(`Last verified ${dateToken(at, tz)}${s.savedBy ? ` by ${userMention(s.savedBy)}` : ''}.`);
  }
  if (ctx.length) blocks.push(context(...ctx));
  return blocks;
}

/** Jobs listed per Home list (failures, in flight): the rest is "and N more" with the command. */
const JOBS_SHOWN = 10;

function jobsBlocks(data: HomeData, maxLines: number, tz: string, cmd: string): Block[] {
  const max = Math.min(maxLines, JOBS_SHOWN);
  const j = data.jobs;
  if (!j.ok) {
    return [
      header('Failures in the last 24 hours'),
      unavailable('Failures', j),
      header('Jobs in flight'),
      unavailable('Jobs', j),
    ];
  }
  const failed: Array<Job & { siteId: string }> = [];
  const inflight: Array<Job & { siteId: string }> = [];
  let failedTotal = 0;
  let inflightTotal = 0;
  const down: string[] = [];
  for (const s of j.value.sites) {
    if (!s.jobs.ok) {
      down.push(`:warning: site ${code(s.siteId)} unavailable: ${esc(reasonText(s.jobs))}.`);
      continue;
    }
    failedTotal += s.jobs.value.failuresTotal;
    inflightTotal += s.jobs.value.inFlightTotal;
    for (const x of s.jobs.value.failures) failed.push({ ...x, siteId: s.siteId });
    for (const x of s.jobs.value.inFlight) inflight.push({ ...x, siteId: s.siteId });
  }
  const newest = (a: Job, b: Job) => (b.updateTime.epochMs ?? 0) - (a.updateTime.epochMs ?? 0);
  failed.sort(newest);
  inflight.sort(newest);
  // A list of jobs, the rest behind the `/dwm jobs` filter that lists them all.
  const jobList = (jobs: Array<Job & { siteId: string }>, total: number, filter: string) =>
    list(
      jobs.map((x) => jobLine(x, tz)),
      total,
      max,
      `See them all with ${code(`${cmd} jobs ${filter}`)}.`,
    );
  const out: Block[] = [header(`Failures in the last 24 hours (${failedTotal})`)];
  // Sites that could not be read are problems: listed first, capped like any list.
  if (down.length) out.push(...list(down, down.length, Math.min(5, max), 'Try Refresh in a minute.'));
  if (failedTotal === 0 && down.length === 0) out.push(section(':large_green_circle: No failed jobs.'));
  else out.push(...jobList(failed, failedTotal, 'status:error from:yesterday'));
  out.push(header(`Jobs in flight (${inflightTotal})`));
  if (inflightTotal === 0) out.push(section('No jobs are running.'));
  else out.push(...jobList(inflight, inflightTotal, 'status:active'));
  if (j.value.sitesNotChecked > 0) {
    out.push(
      context(
        `Jobs of ${j.value.sitesNotChecked} more sites were not looked up here: use ${code(`${cmd} jobs site:<id>`)}.`,
      ),
    );
  }
  return out;
}

function sitesBlocks(data: HomeData, max: number): Block[] {
  const s = data.sites;
  const out: Block[] = [header('Sites')];
  if (!s.ok) return [...out, unavailable('Sites', s)];
  if (s.value.length === 0) return [...out, section('No sites are configured.')];
  const rank = (x: (typeof s.value)[number]) =>
    !x.site ? 1 : x.site.products.some((p) => !p.inService) ? 0 : 2;
  const sorted = [...s.value].sort((a, b) => rank(a) - rank(b) || a.siteId.localeCompare(b.siteId));
  const lines = sorted.map((x) => {
    if (!x.site) return `${code(x.siteId)} · products unknown (no Service API credentials or site not found)`;
    const products = x.site.products.length
      ? x.site.products
          .map(
            (p) =>
              `${(SERVICE_CODE as Record<string, string>)[p.serviceCode] ?? esc(p.serviceCode)} ${productStatus(p.status)}`,
          )
          .join(' · ')
      : 'no products';
    return `${code(x.siteId)} ${esc(truncate(x.site.name, 80))} · ${products}`;
  });
  return [...out, ...list(lines, lines.length, max, 'See them all with `/drm sites`.')];
}

function watchesBlocks(data: HomeData, max: number, cmd: string): Block[] {
  const w = data.watches;
  const out: Block[] = [header('Channel watches')];
  if (!w.ok) return [...out, unavailable('Watches', w)];
  if (w.value.length === 0) {
    return [
      ...out,
      section(
        `No channel watches yet. Run ${code(`${cmd} watch`)} in a channel to get job notifications there.`,
      ),
    ];
  }
  const sorted = [...w.value].sort((a, b) => Number(!!b.paused) - Number(!!a.paused));
  const watched = new Set(w.value.map((s) => s.siteId));
  const delayed = data.outages?.ok ? data.outages.value.filter((o) => watched.has(o.siteId)) : [];
  return [
    ...out,
    ...(delayed.length ? [section(delayed.slice(0, 5).map(outageLine).join('\n'))] : []),
    ...list(sorted.map(watchLine), sorted.length, max, `Run ${code(`${cmd} watches`)} in a channel.`),
  ];
}

function planBlocks(data: HomeData, tz: string): Block[] {
  const p = data.plan;
  const out: Block[] = [header('Latest plan request')];
  if (!p.ok) return [...out, unavailable('Plan requests', p)];
  const unread = (data.planUnread ?? []).map(
    (u) =>
      `${(SERVICE_CODE as Record<string, string>)[u.serviceCode] ?? esc(u.serviceCode)} on site ${code(u.siteId)}: no earlier request could be read (${esc(truncate(`${u.unread.code}: ${u.unread.message}`, 200))})`,
  );
  const unreadBlocks = unread.length ? [context(...unread)] : [];
  if (!p.value)
    return [
      ...out,
      section(
        unread.length ? 'No plan request yet on the products that could be read.' : 'No plan request yet.',
      ),
      ...unreadBlocks,
    ];
  const r = p.value;
  const label = (SERVICE_CODE as Record<string, string>)[r.serviceCode] ?? r.serviceCode;
  const when = r.regTime.epochMs;
  return [
    ...out,
    section(
      `${requestStatus(r.status ?? 'ST001')} · ${esc(r.typeLabel)} · ${label} on site ${code(r.siteId)} · request ${code(r.requestId)}`,
    ),
    context(
      ...[
        r.registeredBy ? `Requested by ${esc(truncate(r.registeredBy, 100))}` : '',
        when !== null ? dateToken(when, tz) : '',
        r.message ? `“${esc(truncate(r.message, 200))}”` : '',
      ],
    ),
    ...unreadBlocks,
  ];
}

/** The Home tab view. At most 100 blocks for any data size. */
export function homeView(data: HomeData, opts: HomeRenderOptions): HomeView {
  const tz = opts.timeZone ?? 'UTC';
  const max = Math.max(1, opts.maxLines ?? 15);
  const cmd = opts.command ?? '/dwm';
  const blocks: Block[] = [
    header('DRM ChatOps'),
    ...connectionBlocks(data, opts, tz),
    buttons(data, opts),
    divider(),
    ...jobsBlocks(data, max, tz, cmd),
    divider(),
    ...sitesBlocks(data, max),
    divider(),
    ...watchesBlocks(data, max, cmd),
    divider(),
    ...planBlocks(data, tz),
    ...notifyBlocks(opts.notify, tz),
    context(`Updated ${dateToken(data.generatedAt, tz)} · ${code(`${cmd} help`)} lists every command.`),
  ];
  return { type: 'home', blocks: fitView(blocks) };
}

/** Shown at once on app_home_opened while the data is gathered (first open only). */
export function homeLoadingView(): HomeView {
  return {
    type: 'home',
    blocks: [header('DRM ChatOps'), section(':hourglass_flowing_sand: Loading the state of your sites…')],
  };
}
