/**
 * Wait for a condition instead of sleeping: `waitUntil(what, check)` polls `check` (sync or async)
 * until it returns a value other than undefined / false, and resolves with it; after `timeoutMs`
 * it rejects naming `what`. For state written after the event a test waits on (an audit entry
 * stored after the report message, a record written after a Slack call), on a loaded machine.
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 20,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
