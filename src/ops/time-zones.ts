/** IANA time zone names (Slack's users.info tz), checked with Intl. */

/** True for a time zone name Intl knows. */
/** Answers by zone name: building an Intl.DateTimeFormat costs ~0.2 ms, on every command. */
const ianaZoneCache = new Map<string, boolean>();

export function isIanaTimeZone(tz: string): boolean {
  const known = ianaZoneCache.get(tz);
  if (known !== undefined) return known;
  let ok: boolean;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    ok = true;
  } catch {
    ok = false;
  }
  // Bounded: zone names come from users.info (a few hundred IANA names at most).
  if (ianaZoneCache.size >= 1000) ianaZoneCache.clear();
  ianaZoneCache.set(tz, ok);
  return ok;
}
