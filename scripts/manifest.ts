/**
 * `npm run manifest -- [--socket] [--url https://host] [--minimal-scopes [--dm-watches]]`: prints
 * the Slack app manifest to paste at https://api.slack.com/apps ("From an app manifest"), made from
 * the shipped manifest.yml so that nothing has to be edited by hand:
 *
 * - `--socket`: Socket Mode on; the request URLs are left out (Slack does not use them), and so is
 *   the OAuth redirect URL unless `--url` is given too (an install page in Socket Mode).
 * - `--url https://host[/prefix]`: every placeholder URL (slash commands, events, interactivity,
 *   OAuth redirect) replaced by that public URL; https only (Slack calls nothing else).
 * - `--minimal-scopes`: without the history scopes (channels/groups/im/mpim:history), and without
 *   im:read / mpim:read unless `--dm-watches`. Without them a crash between posting a
 *   notification and recording it can post it twice (at-least-once) instead of finding it again.
 *
 * One of `--socket` or `--url` is required. The transformation is line-based on the shipped file
 * (no YAML library): `generateManifest` refuses a manifest whose shape it does not recognise, and
 * test/scripts/manifest.test.ts runs it on the shipped manifest.yml.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { DM_READ_SCOPES, HISTORY_SCOPES } from '../src/slack/startup-check.js';

export const PLACEHOLDER = 'https://drm-chatops.example.com';

/** Scopes `--minimal-scopes` leaves out, and the ones `--dm-watches` keeps of them (the bot's own lists). */
export { DM_READ_SCOPES, HISTORY_SCOPES } from '../src/slack/startup-check.js';

export interface ManifestOptions {
  socket?: boolean;
  /** Public base URL (https), without a trailing slash. */
  url?: string;
  minimalScopes?: boolean;
  dmWatches?: boolean;
}

export class ManifestUsageError extends Error {
  override name = 'ManifestUsageError';
}

export const USAGE =
  'Usage: npm run manifest -- --socket | --url https://your.host [--minimal-scopes [--dm-watches]]\n' +
  '  --socket          Socket Mode (no public URL: the bot connects out with SLACK_APP_TOKEN)\n' +
  '  --url URL         HTTP mode: Slack calls URL/slack/events (https, your reverse proxy or load balancer)\n' +
  '  --minimal-scopes  leave out the history scopes (a crash can then repeat a notification once)\n' +
  '  --dm-watches      with --minimal-scopes: keep im:read and mpim:read (watches in DMs)';

/** Parse the command line (the words after `npm run manifest --`). */
export function parseManifestArgs(argv: readonly string[]): ManifestOptions {
  const o: ManifestOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--socket') o.socket = true;
    else if (a === '--minimal-scopes') o.minimalScopes = true;
    else if (a === '--dm-watches') o.dmWatches = true;
    else if (a === '--url' || a.startsWith('--url=')) {
      const v = a === '--url' ? argv[++i] : a.slice('--url='.length);
      if (!v) throw new ManifestUsageError('--url needs a value, like --url https://chatops.example.org');
      o.url = checkPublicUrl(v);
    } else if (a === '--help' || a === '-h') throw new ManifestUsageError(USAGE);
    else throw new ManifestUsageError(`Unknown option ${a}.\n${USAGE}`);
  }
  if (!o.socket && !o.url) throw new ManifestUsageError(`Give --socket or --url.\n${USAGE}`);
  if (o.dmWatches && !o.minimalScopes)
    throw new ManifestUsageError('--dm-watches goes with --minimal-scopes (the full scopes include DMs).');
  return o;
}

/** An https URL with a host, no query or fragment; returned without a trailing slash. */
export function checkPublicUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new ManifestUsageError(
      `"${text}" is not a URL; give the public https URL, like https://chatops.example.org`,
    );
  }
  if (u.protocol !== 'https:')
    throw new ManifestUsageError(
      `"${text}" is not https: Slack calls only https URLs. Put a TLS-terminating reverse proxy in front of the bot (docs/operations.md), or use --socket.`,
    );
  if (u.search || u.hash || u.username || u.password)
    throw new ManifestUsageError(`"${text}" must be a plain base URL (no query, fragment or user).`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** The manifest made from the shipped text (see the module comment). Throws on an unknown shape. */
export function generateManifest(shipped: string, o: ManifestOptions): string {
  const lines = shipped.split('\n');
  const count = lines.filter((l) => !l.startsWith('#') && l.includes(PLACEHOLDER)).length;
  if (count !== 5)
    throw new Error(`manifest.yml: expected 5 placeholder URLs (${PLACEHOLDER}), found ${count}`);
  if (!lines.includes('  socket_mode_enabled: false'))
    throw new Error('manifest.yml: no "  socket_mode_enabled: false" line under settings');
  const leftOut = new Set<string>(
    o.minimalScopes ? [...HISTORY_SCOPES, ...(o.dmWatches ? [] : DM_READ_SCOPES)] : [],
  );
  const out: string[] = [];
  // The shipped file's opening comment says to edit it by hand: replaced by what was generated.
  let i = 0;
  while (i < lines.length && lines[i]!.startsWith('#')) i++;
  out.push(
    `# Generated by \`npm run manifest -- ${describeOptions(o)}\` from manifest.yml: paste it at`,
    '# https://api.slack.com/apps -> Create New App -> From an app manifest.',
  );
  let inBotScopes = false;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '    bot:') inBotScopes = true;
    else if (inBotScopes && !/^ {6}- /.test(line)) inBotScopes = false;
    if (inBotScopes) {
      const scope = /^ {6}- (\S+)$/.exec(line)?.[1];
      if (scope && leftOut.has(scope)) continue;
    }
    if (line === '  socket_mode_enabled: false') {
      out.push(o.socket ? '  socket_mode_enabled: true' : line);
      continue;
    }
    if (line.includes(PLACEHOLDER)) {
      const isRedirect = /^ {4}- https:/.test(line);
      if (o.url) out.push(line.replace(PLACEHOLDER, o.url));
      else if (isRedirect) {
        // Socket Mode without a URL: no redirect URL (installed with "Install to Workspace");
        // an emptied redirect_urls list would not validate, so the key goes too.
        if (out.at(-1) === '  redirect_urls:') out.pop();
      }
      // Socket Mode: request URLs are not used; the key is left out.
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

function describeOptions(o: ManifestOptions): string {
  return [
    o.socket ? '--socket' : '',
    o.url ? `--url ${o.url}` : '',
    o.minimalScopes ? '--minimal-scopes' : '',
    o.dmWatches ? '--dm-watches' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function main(): void {
  try {
    const o = parseManifestArgs(process.argv.slice(2));
    const shipped = readFileSync(new URL('../manifest.yml', import.meta.url), 'utf8');
    process.stdout.write(generateManifest(shipped, o));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
