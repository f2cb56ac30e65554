/**
 * `npm run picture` — the README's picture: the job card the bot posts for a failed job and the
 * thread reply under it (dev/demo/card-sample.ts: the demo's inputs through the card renderer, at a
 * fixed time), rendered as a small HTML page styled like a Slack message and screenshotted with
 * headless Chromium (Debian: `apt-get install -y chromium-headless-shell`) into
 * docs/img/job-card.png. Without Chromium it writes the HTML (docs/img/job-card.html) and says so.
 *
 * It first plays the offline demo and checks that the card the demo's bot really sent is the
 * sample (dates aside), so the picture shows what the demo posts. It then writes the messages it
 * drew to docs/img/job-card.blocks.json: test/readme-picture.test.ts compares that file with the
 * renderer's current output and fails, asking to run `npm run picture`, when the picture is stale.
 * The rendering is an approximation of Slack's (fonts, emoji as coloured dots): the demo's
 * `--links` output opens the same blocks in Slack's Block Kit Builder for the real thing.
 * Traffic: loopback only (the demo's emulator and fake Slack); Chromium opens a local file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import {
  BLOCKS_FILE,
  blocksFileText,
  type SampleCard,
  sampleCard,
  sampleCardInputs,
  withoutDates,
} from '../dev/demo/card-sample.js';
import { type DemoState, STEPS } from '../dev/demo/session.js';
import { startDemoStack } from '../dev/demo/stack.js';
import type { FakeCall } from '../dev/fakeslack/index.js';

type Obj = Record<string, unknown>;

const EMOJI: Record<string, string> = {
  red_circle: '<span class="dot" style="background:#e01e5a"></span>',
  large_green_circle: '<span class="dot" style="background:#2eb67d"></span>',
  large_blue_circle: '<span class="dot" style="background:#1d9bd1"></span>',
  white_circle: '<span class="dot" style="background:#fff;border:1px solid #bbb"></span>',
};

/** Channel names Slack shows for the demo's channel ids (Slack resolves `<#C…>` itself). */
const CHANNEL_NAMES: Record<string, string> = { C0RELEASES: 'releases' };

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Slack mrkdwn (already entity-escaped by the bot) to HTML: bold, italics, code, links, emoji. */
export function mrkdwnToHtml(text: string): string {
  // The bot escaped &, < and > in text; Slack's own tokens (<@U…>, <!date…>, <url|label>) remain.
  let s = text
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(/<@([A-Z0-9]+)>/g, '@$1')
    .replace(
      /<#([A-Z0-9]+)(\|([^>]*))?>/g,
      (_m, id: string, _x, name?: string) => `#${name ?? CHANNEL_NAMES[id] ?? id}`,
    )
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, '$2');
  // Decode the bot's escapes, then escape everything once for HTML.
  s = escapeHtml(s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
  return s
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/(^|[\s(])\*([^*\n]+)\*/g, '$1<b>$2</b>')
    .replace(/(^|[\s(])_([^_\n]+)_/g, '$1<i>$2</i>')
    .replace(/:([a-z0-9_+-]+):/g, (m, name: string) => EMOJI[name] ?? (name.length ? '' : m))
    .replace(/\n/g, '<br>');
}

const textHtml = (t: unknown) =>
  t && typeof t === 'object' && typeof (t as Obj).text === 'string'
    ? mrkdwnToHtml((t as Obj).text as string)
    : '';

function blockHtml(b: Obj): string {
  switch (b.type) {
    case 'header':
      return `<div class="header">${textHtml(b.text)}</div>`;
    case 'section': {
      const fields = Array.isArray(b.fields)
        ? `<div class="fields">${b.fields.map((f) => `<div>${textHtml(f)}</div>`).join('')}</div>`
        : '';
      return `<div class="section">${b.text ? `<div>${textHtml(b.text)}</div>` : ''}${fields}</div>`;
    }
    case 'context':
      return `<div class="context">${((b.elements as unknown[]) ?? []).map((e) => `<span>${textHtml(e)}</span>`).join('')}</div>`;
    case 'actions':
      return `<div class="actions">${((b.elements as Obj[]) ?? [])
        .map((e) => `<span class="button ${String(e.style ?? '')}">${textHtml(e.text)}</span>`)
        .join('')}</div>`;
    case 'divider':
      return '<hr>';
    default:
      return '';
  }
}

function messageHtml(blocks: Obj[], fallback: string): string {
  const body = blocks.length ? blocks.map(blockHtml).join('') : `<div>${mrkdwnToHtml(fallback)}</div>`;
  return `<div class="msg"><div class="avatar">DC</div><div class="body"><div class="name">DRM ChatOps <span class="app">APP</span> <span class="time">10:42</span></div>${body}</div></div>`;
}

const CSS = `
body { margin: 0; background: #fff; font: 15px/1.46668 "DejaVu Sans", Helvetica, Arial, sans-serif; color: #1d1c1d; }
.frame { width: 720px; padding: 16px 20px; }
.channel { font-weight: 700; font-size: 15px; padding-bottom: 10px; border-bottom: 1px solid #ddd; margin-bottom: 12px; }
.msg { display: flex; gap: 10px; margin-bottom: 8px; }
.avatar { width: 36px; height: 36px; border-radius: 6px; background: #1d3557; color: #fff; font-weight: 700; font-size: 13px; display: flex; align-items: center; justify-content: center; flex: none; }
.name { font-weight: 700; } .app { font-size: 10px; background: #e8e8e8; color: #616061; padding: 1px 3px; border-radius: 2px; font-weight: 700; } .time { color: #616061; font-weight: 400; font-size: 12px; }
.header { font-weight: 700; font-size: 17px; margin: 4px 0; }
.section { margin: 4px 0; } .fields { display: grid; grid-template-columns: 1fr 1fr; gap: 2px 16px; margin-top: 4px; }
.context { color: #616061; font-size: 12px; margin: 4px 0; } .context span { margin-right: 10px; }
.actions { margin: 8px 0 4px; } .button { display: inline-block; border: 1px solid #bbb; border-radius: 4px; padding: 3px 12px; margin-right: 8px; font-weight: 700; font-size: 13px; }
.button.primary { background: #007a5a; color: #fff; border-color: #007a5a; } .button.danger { color: #e01e5a; }
code { font: 12px "DejaVu Sans Mono", monospace; background: #f6f6f6; border: 1px solid #e0e0e0; border-radius: 3px; padding: 0 3px; color: #e01e5a; }
.dot { display: inline-block; width: 12px; height: 12px; border-radius: 50%; vertical-align: -1px; }
hr { border: 0; border-top: 1px solid #ddd; }
.thread { margin-left: 46px; padding-left: 12px; border-left: 3px solid #ddd; }
.thread .label { color: #616061; font-size: 12px; margin-bottom: 4px; }
`;

/** The failed job's card and its thread reply, as the demo's bot sent them to #releases. */
async function demoCard(): Promise<SampleCard> {
  const stack = await startDemoStack({ logLevel: 'silent' });
  let calls: FakeCall[];
  try {
    const state: DemoState = { jobs: {} };
    for (const step of STEPS) await step.run(stack, state);
    calls = stack.fake.calls();
  } finally {
    await stack.close();
  }
  // The failed job's messages: its card (top level, the last edit) and its final thread reply.
  const { job } = sampleCardInputs();
  const ofJob = (c: FakeCall) =>
    (c.method === 'chat.postMessage' || c.method === 'chat.update') &&
    String(c.args.channel) === sampleCardInputs().sub.channelId &&
    String(c.args.text ?? '').startsWith(`Job ${job.jobId} (`);
  const card = calls.filter((c) => ofJob(c) && !c.args.thread_ts).at(-1);
  const reply = calls
    .filter((c) => ofJob(c) && c.args.thread_ts && c.args.text?.toString().includes('ended in'))
    .at(-1);
  if (!card || !reply) throw new Error('the demo posted no job card (and thread reply) for a failed job');
  const msg = (c: FakeCall) => ({
    text: String(c.args.text ?? ''),
    blocks: (c.args.blocks as unknown[]) ?? [],
  });
  return { card: msg(card), reply: msg(reply) };
}

async function main(): Promise<void> {
  const sample = sampleCard();
  const demo = await demoCard();
  const pick = (m: SampleCard) => ({
    card: { text: m.card.text, blocks: m.card.blocks ?? [] },
    reply: { text: m.reply.text, blocks: m.reply.blocks ?? [] },
  });
  if (!isDeepStrictEqual(withoutDates(pick(demo)), withoutDates(pick(sample)))) {
    throw new Error(
      `The demo's job card differs from dev/demo/card-sample.ts (dates aside): update the sample's inputs to what the demo posts.\ndemo:   ${JSON.stringify(pick(demo))}\nsample: ${JSON.stringify(pick(sample))}`,
    );
  }
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>${CSS}</style></head><body><div class="frame">
<div class="channel"># releases <span class="time">(watched by /dwm watch)</span></div>
${messageHtml((sample.card.blocks as Obj[]) ?? [], sample.card.text)}
<div class="thread"><div class="label">Thread</div>${messageHtml((sample.reply.blocks as Obj[]) ?? [], sample.reply.text)}</div>
</div></body></html>`;
  const dir = resolve('docs/img');
  mkdirSync(dir, { recursive: true });
  const htmlPath = resolve(dir, 'job-card.html');
  writeFileSync(htmlPath, html);
  writeFileSync(resolve(BLOCKS_FILE), blocksFileText(sample));
  const chromium = ['chromium-headless-shell', 'chromium', 'chromium-browser'].find(
    (b) => spawnSync('sh', ['-c', `command -v ${b}`]).status === 0,
  );
  if (!chromium) {
    process.stdout.write(
      `No headless Chromium: wrote ${htmlPath} only (apt-get install -y chromium-headless-shell).\n`,
    );
    return;
  }
  const png = resolve(dir, 'job-card.png');
  const r = spawnSync(
    chromium,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      '--force-device-scale-factor=1',
      '--window-size=760,830',
      `--screenshot=${png}`,
      pathToFileURL(htmlPath).href,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (r.status !== 0 || !existsSync(png)) throw new Error(`Chromium failed: ${r.stderr}`);
  process.stdout.write(`wrote ${png} (from ${htmlPath}, which is not kept)\n`);
  spawnSync('rm', ['-f', htmlPath]);
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly)
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
