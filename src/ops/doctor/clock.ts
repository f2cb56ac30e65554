/**
 * The service check's time readings: the clock of each service (its Date header against the
 * bot's, and what that means for the JWT lifetime and a watch's clock allowance) and the time
 * zone the watermarking API echoes. A change to how time is compared or advised lives here.
 */
import { CLOCK_ALLOWANCE_MS } from '../../watch/intents.js';
import { type DoctorCheck, jobSearch, type Probe } from './context.js';
import { firstSite, firstSiteJobSearch, notObserved } from './readings.js';

/** WATCH_CLOCK_ALLOWANCE_SECONDS's default (the poller's). */
const DEFAULT_WATCH_CLOCK_ALLOWANCE_SECONDS = CLOCK_ALLOWANCE_MS / 1000;

function describeSkew(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const amount = s >= 120 ? `${Math.round(s / 60)} minutes` : `${s} second${s === 1 ? '' : 's'}`;
  return `${amount} ${ms > 0 ? 'ahead of' : 'behind'} the bot's clock`;
}

function dateHeader(p: Probe): number | undefined {
  const d = p.res?.headers.date;
  const v = Array.isArray(d) ? d[0] : d;
  if (!v) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

export const clockSkew: DoctorCheck = {
  id: 'clock',
  point: "The service's clock (Date header)",
  async run(ctx) {
    const now = ctx.input.now();
    const site = firstSite(ctx);
    const probes: Array<[string, Probe]> = [];
    if (ctx.svc) probes.push(['Service API', await ctx.svcGet('getSites', '/account/siteId')]);
    if (ctx.wm && site) probes.push(['Watermarking API', await jobSearch(ctx, site)]);
    const seen = probes.flatMap(([label, p]) => {
      const t = dateHeader(p);
      return t === undefined ? [] : [{ label, skew: t - now }];
    });
    if (seen.length === 0) return notObserved('no Date header in the answers');
    const text = seen.map((s) => `${s.label} ${describeSkew(s.skew)}`).join('; ');
    // A JWT expires after SERVICE_JWT_TTL_SECONDS by the bot's clock: a service further ahead
    // than that sees every token as expired.
    const svcSkew = seen.find((s) => s.label === 'Service API')?.skew ?? 0;
    const ttl = ctx.settings.jwtTtlSeconds;
    if (ttl > 0 && svcSkew > (ttl - 30) * 1000) {
      const need = Math.ceil(svcSkew / 1000) + 300;
      return {
        status: 'setting',
        reading: `${text}: a JWT living ${ttl} s looks expired to the Service API`,
        next: 'Fix the clock of either side, or lengthen the JWT lifetime.',
        env: [{ name: 'SERVICE_JWT_TTL_SECONDS', value: String(need) }],
      };
    }
    // A watch hears job changes stamped up to the allowance (plus the skew its polls measure)
    // before its creation: a service further behind than the allowance stamps a change made just
    // after a watch is made earlier than that until a poll has measured its clock.
    const allowance = ctx.settings.watchClockAllowanceSeconds ?? DEFAULT_WATCH_CLOCK_ALLOWANCE_SECONDS;
    const behindMs = Math.max(0, ...seen.map((s) => -s.skew));
    if (behindMs > allowance * 1000) {
      const need = Math.min(3600, Math.ceil(behindMs / 1000) + DEFAULT_WATCH_CLOCK_ALLOWANCE_SECONDS);
      return {
        status: 'setting',
        reading: `${text}: more than the ${allowance} s a watch allows for (WATCH_CLOCK_ALLOWANCE_SECONDS)`,
        next: {
          before: 'Fix the clock of the service, or raise the allowance so a job change right after ',
          step: { do: 'watch' },
          after: ' is told.',
        },
        env: [{ name: 'WATCH_CLOCK_ALLOWANCE_SECONDS', value: String(need) }],
      };
    }
    const off = seen.some((s) => Math.abs(s.skew) > 5_000);
    return { status: off ? 'info' : 'ok', reading: text };
  },
};

export const timeZoneEcho: DoctorCheck = {
  id: 'wm.timeZone',
  point: 'time_zone echoed by the watermarking API',
  async run(ctx) {
    const r = await firstSiteJobSearch(ctx);
    if ('finding' in r) return r.finding;
    const p = r.jobs;
    const tz = p.body?.time_zone;
    if (tz === undefined || tz === null) {
      return { status: 'info', reading: 'not echoed: the bot reads times in the zone it asked for' };
    }
    if (tz === '+09:00') return { status: 'ok', reading: 'echoed as the offset asked for (+09:00)' };
    return {
      status: 'info',
      reading: `echoed as "${String(tz).slice(0, 40)}" when +09:00 was asked: the bot reads times in the zone it asked for`,
    };
  },
};
