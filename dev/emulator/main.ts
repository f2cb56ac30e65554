/**
 * `npm run emulator`: the emulator standalone on 127.0.0.1:PORT (default 4010) with demo data.
 * Prints the base URLs and the demo credentials (they are fake, for the local demo only).
 */
import { startEmulator } from './index.js';

const port = Number(process.env.PORT ?? 4010);
const emu = await startEmulator({ port: Number.isInteger(port) ? port : 4010 });
const d = emu.demo;
process.stdout.write(
  [
    'drm-chatops emulator running (demo data, fake credentials)',
    `  Watermarking API: ${emu.wmBaseUrl}`,
    `  Service API:      ${emu.serviceBaseUrl}   (paths /api/v2/...)`,
    `  Sites: ${d.siteIds.join(', ')} (default ${d.defaultSiteId})`,
    `  Watermarking account: ${d.watermarking.accountId} / access key ${d.watermarking.accessKey}`,
    `  Service account: ${d.service.accountId} (seq ${d.service.accountSeq}) / secret ${d.service.secretKey}`,
    'Press Ctrl+C to stop.',
    '',
  ].join('\n'),
);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping the emulator\n`);
  await emu.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
