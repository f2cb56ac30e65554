/**
 * `npm run emulator`: the emulator standalone on 127.0.0.1:PORT (default 4010) with demo data.
 * Prints the .env lines that point the bot at it and the demo credentials to type in /dwm setup
 * (they are fake, for the local demo only): banner.ts.
 * EMULATOR_BEHAVIOURS switches spec deviations on (behaviours.ts), comma-separated:
 * omitEmptyFields, unknownCodes, bigIds, idsBeyondSafe, clockSkew (10 minutes ahead),
 * duplicateCode (DUP-01), timeZoneText (Asia/Seoul), pageCap (pages of at most 100 items),
 * omitTotalCount, wmDatesUtc, serviceTimeZone (+09:00), taskListCap (10 tasks a list), clockBehind
 * (10 minutes behind), or all (pageCap, omitTotalCount, wmDatesUtc, serviceTimeZone, taskListCap and
 * clockBehind are not part of all); and the readings of the open points `npm run doctor` finds:
 * planNone=empty|notFound (endpoint 8's "no request yet"; notFound with the code NF-404),
 * siteRequestWords (ON_HOLD / GRANTED / DECLINED instead of requested / approved / cancelled),
 * notFoundCodes (J404 / R404 for a missing job / recipient), writeParamsIn=query|json|form (where
 * POST/PUT parameters are read).
 */

import { emulatorBanner } from './banner.js';
import { ALL_BEHAVIOURS, type EmulatorBehaviours } from './behaviours.js';
import { startEmulator } from './index.js';

function behavioursFrom(text: string | undefined): EmulatorBehaviours {
  const b: EmulatorBehaviours = {};
  for (const w of (text ?? '').split(',').map((x) => x.trim())) {
    if (w === 'all') Object.assign(b, ALL_BEHAVIOURS);
    else if (w === 'omitEmptyFields' || w === 'unknownCodes' || w === 'bigIds' || w === 'idsBeyondSafe')
      b[w] = true;
    else if (w === 'clockSkew') b.clockSkewMs = ALL_BEHAVIOURS.clockSkewMs;
    else if (w === 'duplicateCode') b.duplicateCode = ALL_BEHAVIOURS.duplicateCode;
    else if (w === 'timeZoneText') b.timeZoneText = ALL_BEHAVIOURS.timeZoneText;
    else if (w === 'pageCap') b.pageCap = 100;
    else if (w === 'omitTotalCount') b.omitTotalCount = true;
    else if (w === 'wmDatesUtc') b.wmDatesUtc = true;
    else if (w === 'serviceTimeZone') b.serviceTimeZone = '+09:00';
    else if (w === 'taskListCap') b.taskListCap = 10;
    else if (w === 'clockBehind') b.clockSkewMs = -ALL_BEHAVIOURS.clockSkewMs;
    else if (w === 'planNone=empty') b.planNone = 'empty';
    else if (w === 'planNone=notFound') Object.assign(b, { planNone: 'notFound', planNoneCode: 'NF-404' });
    else if (w === 'siteRequestWords')
      b.siteRequestStatusWords = { requested: 'ON_HOLD', approved: 'GRANTED', cancelled: 'DECLINED' };
    else if (w === 'notFoundCodes') b.errorCodes = { jobNotFound: 'J404', recipientNotFound: 'R404' };
    else if (w === 'writeParamsIn=query' || w === 'writeParamsIn=json' || w === 'writeParamsIn=form')
      b.writeParamsIn = w.slice('writeParamsIn='.length) as 'query' | 'json' | 'form';
    else if (w) process.stderr.write(`EMULATOR_BEHAVIOURS: "${w}" is not a behaviour; ignored\n`);
  }
  return b;
}

const port = Number(process.env.PORT ?? 4010);
const behaviours = behavioursFrom(process.env.EMULATOR_BEHAVIOURS);
const emu = await startEmulator({ port: Number.isInteger(port) ? port : 4010, behaviours });
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
// The banner last: whoever reads it (a person, a test) may stop the emulator at once.
process.stdout.write(emulatorBanner(emu, behaviours));
