/**
 * The text after `/dwm digest` read as one action (daily HH:MM [zone], now, off, or the bare
 * command), a ValidationError saying what to type instead. Slack words: the usage names the
 * commands, so it lives with the feature, not in src/ops/digest.ts.
 */
import { ValidationError } from '../../../api/errors.js';
import { normaliseTime } from '../../../notices/digest-schedules.js';
import { opsEndpoint } from '../../../ops/service/common.js';
import { isIanaTimeZone } from '../../../time.js';

export type DigestCommand =
  | { action: 'show' }
  | { action: 'now' }
  | { action: 'off' }
  | { action: 'daily'; time: string; zone?: string };

const USAGE = 'Use /dwm digest daily HH:MM [zone], /dwm digest now, /dwm digest off or /dwm digest.';

/** Parse the text after `/dwm digest`; a ValidationError says what to type instead. */
export function parseDigestArgs(text: string): DigestCommand {
  const endpoint = opsEndpoint('digest');
  const words = text.trim().split(/\s+/).filter(Boolean);
  const verb = (words[0] ?? '').toLowerCase();
  if (verb === '' || verb === 'show' || verb === 'status') return { action: 'show' };
  if (verb === 'now' && words.length === 1) return { action: 'now' };
  if ((verb === 'off' || verb === 'stop') && words.length === 1) return { action: 'off' };
  if (verb === 'daily') {
    const rawTime = words[1];
    if (!rawTime)
      throw new ValidationError(endpoint, [
        { field: 'time', message: `Give the time of day, like /dwm digest daily 09:00. ${USAGE}` },
      ]);
    const time = normaliseTime(rawTime);
    if (!time) {
      throw new ValidationError(endpoint, [
        {
          field: 'time',
          message: `"${rawTime.slice(0, 20)}" is not a time of day: use 24-hour HH:MM, like 09:00 or 17:30.`,
        },
      ]);
    }
    if (words.length > 3)
      throw new ValidationError(endpoint, [
        { field: 'zone', message: `Give one time zone at most, like Europe/Berlin. ${USAGE}` },
      ]);
    const zone = words[2];
    if (zone !== undefined && !isIanaTimeZone(zone)) {
      throw new ValidationError(endpoint, [
        {
          field: 'zone',
          message: `"${zone.slice(0, 40)}" is not a time zone: use an IANA name like Europe/Berlin, America/New_York or UTC.`,
        },
      ]);
    }
    return { action: 'daily', time, ...(zone ? { zone } : {}) };
  }
  throw new ValidationError(endpoint, [
    { field: 'action', message: `"${verb.slice(0, 20)}" is not a digest action. ${USAGE}` },
  ]);
}
