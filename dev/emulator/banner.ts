/**
 * What `npm run emulator` prints: the `.env` lines that point the bot at it (paste them as they
 * are: the two URLs are the minimum's service part, README "Try it in your own workspace"), and
 * what an admin types in `/dwm setup` (the demo's fake credentials). The end-to-end test of
 * README's path reads the `.env` lines out of this text, so what is printed is what is tested.
 */
import type { EmulatorBehaviours } from './behaviours.js';
import type { EmulatorHandle } from './types.js';

export function emulatorBanner(
  emu: Pick<EmulatorHandle, 'wmBaseUrl' | 'serviceBaseUrl' | 'demo'>,
  behaviours: EmulatorBehaviours = {},
): string {
  const d = emu.demo;
  return [
    'drm-chatops emulator running (demo data, fake credentials)',
    '',
    "Paste these lines into the bot's .env (then start the bot):",
    `DWM_BASE_URL=${emu.wmBaseUrl}`,
    `SERVICE_API_BASE_URL=${emu.serviceBaseUrl}`,
    '',
    'Then in Slack, /dwm setup, and type:',
    `  Site ids: ${d.siteIds.join(', ')} (default ${d.defaultSiteId})`,
    `  Watermarking API: account id ${d.watermarking.accountId}, access key ${d.watermarking.accessKey}`,
    `  Service API: account id ${d.service.accountId}, account sequence ${d.service.accountSeq}, secret key ${d.service.secretKey}`,
    '',
    `Spec deviations: ${Object.keys(behaviours).join(', ') || 'none'} (EMULATOR_BEHAVIOURS)`,
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/** The `KEY=value` lines of a banner, as a .env reader would take them. */
export function envLinesOf(banner: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of banner.matchAll(/^([A-Z][A-Z0-9_]*)=(\S+)$/gm)) out[m[1]!] = m[2]!;
  return out;
}
