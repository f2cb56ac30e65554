/**
 * Bad input: property-based tests (fast-check, seeded from FAULTS_SEED) of the command parser and
 * dispatch, the name/description/content validators, the CSV reader, the envelope parser and the
 * renderers, and hostile strings (`<!channel>`, `<@U123>`, `*bold*`, 10,000-char names, control
 * characters, RTL marks, emoji) from users (through the real app) and from the service (through
 * the watcher to the fake Slack): never a ping, never a broken message, never over a Block Kit limit.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateMessageBlocks } from '../../dev/fakeslack/index.js';
import { decodeEnvelope } from '../../src/api/envelope.js';
import { ApiError, ServiceError } from '../../src/api/errors.js';
import {
  LIMITS as API_LIMITS,
  checkContentId,
  checkRecipientDescription,
  checkRecipientName,
} from '../../src/api/validate.js';
import { readCsv, writeCsv } from '../../src/ops/csv.js';
import { auditListMessage } from '../../src/slack/features/audit/render.js';
import { registry } from '../../src/slack/features/index.js';
import { blockRenderer } from '../../src/slack/features/watch/render-card.js';
import { LIMITS, type Message } from '../../src/slack/kit/blocks/blocks.js';
import { decodeSlackText, ParseError, tokenize } from '../../src/slack/kit/commands/parse.js';
import { CommandRegistry } from '../../src/slack/kit/commands/registry.js';
import type { CommandContext } from '../../src/slack/kit/context/context.js';
import { renderError } from '../../src/slack/kit/context/errors.js';
import { plainRenderer } from '../../src/watch/render.js';
import type { JobSummary, Subscription } from '../../src/watch/types.js';
import { startTestBot, type TestBot } from '../harness/index.js';
import { lastSeq } from '../support/slack.js';
import { registryCases, said, waitReplies } from './support/bot.js';
import { suiteSeed } from './support/seed.js';
import { scenario } from './support/summary.js';
import { completeness, SITE, startWatchRig, subscribeAll } from './support/watch.js';

const RUNS = 150;
const params = { seed: suiteSeed(), numRuns: RUNS };

/** Strings users and services really send to break things. */
const HOSTILE = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<@U123>',
  '<@U0EVIL99|boss>',
  '<!subteam^S123>',
  '<#C123|general>',
  '<https://evil.example|click>',
  '*bold* _it_ ~strike~ `code` ```block```',
  '&lt;!channel&gt;',
  '\u202Eevil\u202C',
  '\u200F\u200E\u2066rtl\u2069',
  '\u0000\u0007\u001b[31m\u007f',
  '🔥👩‍👩‍👧‍👦🇰🇷',
  '\r\n\t',
  '"quoted" \'single\' “smart”',
  "=cmd|' /C calc'!A0",
  'x'.repeat(10_000),
  '<!channel>'.repeat(500),
  // Emoji after one letter: any cut at an even UTF-16 length leaves half a pair.
  `x${'🔥'.repeat(1_000)}`,
];

const hostileArb = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc
    .array(fc.constantFrom(...HOSTILE.slice(0, 17), ' ', 'site:AB12', 'x:y', '"'), { maxLength: 12 })
    .map((a) => a.join(' ')),
);

/** A ping: a mention token Slack would notify on (`<!channel>`, `<!here>`, `<@U…>`, `<!subteam^…>`). */
const PING = /<!(channel|here|everyone)(\|[^>]*)?>|<@[UW][A-Z0-9]+(\|[^>]*)?>|<!subteam\^[A-Z0-9]+/;

function problemsOf(msg: Message, allowPing?: RegExp): string[] {
  const out: string[] = [];
  if (typeof msg.text !== 'string' || msg.text.length === 0) out.push('no fallback text');
  if ((msg.text ?? '').length > LIMITS.messageText)
    out.push(`text ${msg.text.length} > ${LIMITS.messageText}`);
  if (msg.blocks) out.push(...validateMessageBlocks(msg.blocks));
  const all = JSON.stringify(msg);
  const strip = allowPing ? all.replace(allowPing, '') : all;
  if (PING.test(strip)) out.push(`ping: ${strip.match(PING)?.[0]}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe('properties (fast-check)', () => {
  it('the tokenizer takes any text: tokens or a ParseError, nothing else', async () => {
    await scenario(
      { scenario: 'input: tokenizer property', injected: `${RUNS} arbitrary + hostile strings` },
      async () => {
        fc.assert(
          fc.property(hostileArb, (s) => {
            try {
              const tokens = tokenize(decodeSlackText(s));
              expect(Array.isArray(tokens)).toBe(true);
            } catch (e) {
              expect(e).toBeInstanceOf(ParseError);
              expect((e as Error).message.length).toBeGreaterThan(0);
            }
          }),
          params,
        );
        return { outcome: 'never throws anything but ParseError' };
      },
    );
  });

  it('dispatch of any text under every command answers once, valid and ping-free', async () => {
    // A copy of the registry whose handlers fail with the parsed values in a service error: the
    // parse, help, did-you-mean, refusal and error renderers all see hostile text.
    const copy = new CommandRegistry();
    for (const e of registry.entries()) {
      copy.add({
        ...e,
        command: e.commands,
        handler: async (_ctx, args) => {
          throw new ServiceError('probe', 'E1', JSON.stringify(args));
        },
      });
    }
    const paths = registry.entries().map((e) => e.path.join(' '));
    const cmdText = fc.tuple(fc.constantFrom('', ...paths), hostileArb).map(([p, s]) => `${p} ${s}`);
    await scenario(
      { scenario: 'input: dispatch property', injected: `${RUNS} command texts x roles` },
      async () => {
        await fc.assert(
          fc.asyncProperty(
            cmdText,
            fc.constantFrom('admin', 'member'),
            fc.constantFrom('/dwm', '/drm'),
            async (text, role, command) => {
              const replies: Message[] = [];
              const ctx = {
                deps: { config: {} } as never,
                workspace: 'T1',
                userId: 'U1',
                command,
                refId: 'ref1',
                logger: {
                  info() {},
                  error() {},
                  warn() {},
                  debug() {},
                  child() {
                    return this;
                  },
                } as never,
                client: {} as never,
                share: false,
                triggerId: 't',
                respond: async (m: Message) => void replies.push(m),
                timeZone: async () => 'UTC',
                role: async () => role,
                standing: async () => role,
                admins: async () => 'a workspace admin',
                clients: async () => {
                  throw new Error('none');
                },
                audit: async () => undefined,
                openView: async () => undefined,
              } as unknown as CommandContext;
              await copy.dispatch(ctx, text);
              // A modal entry with missing args opens a view instead of answering.
              expect(replies.length).toBeLessThanOrEqual(1);
              for (const m of replies) expect(problemsOf(m)).toEqual([]);
            },
          ),
          { ...params, numRuns: RUNS * 2 },
        );
        return { outcome: 'one valid reply, no ping, within limits' };
      },
    );
  });

  it('validators take any string and answer null or a short message', async () => {
    await scenario(
      { scenario: 'input: validators property', injected: 'name/description/content id' },
      async () => {
        const enc = new TextEncoder();
        fc.assert(
          fc.property(hostileArb, (s) => {
            // Names and descriptions are limited in characters (the spec's "maximum length": code
            // points, as the service counts them), content ids in UTF-8 bytes ("maximum 200 bytes").
            for (const [check, size, max] of [
              [checkRecipientName, (x: string) => x.length, API_LIMITS.recipientName],
              [checkRecipientDescription, (x: string) => [...x].length, API_LIMITS.recipientDescription],
              [checkContentId, (x: string) => enc.encode(x).length, API_LIMITS.contentIdBytes],
            ] as const) {
              const r = check(s);
              if (r === null) expect(size(s)).toBeLessThanOrEqual(max);
              else {
                expect(r.length).toBeGreaterThan(0);
                expect(r.length).toBeLessThan(600);
                expect(PING.test(r)).toBe(false);
              }
            }
          }),
          params,
        );
        return { outcome: 'never throws; accepted values within limits; messages short, ping-free' };
      },
    );
  });

  it('CSV: any text reads or fails with a line; any cells round-trip through writeCsv/readCsv', async () => {
    await scenario({ scenario: 'input: CSV property', injected: 'arbitrary text and cells' }, async () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 500 }), (s) => {
          const r = readCsv(s);
          if (!r.ok) {
            expect(r.error.line).toBeGreaterThanOrEqual(0);
            expect(r.error.message.length).toBeGreaterThan(0);
          }
        }),
        params,
      );
      const cell = fc.oneof(
        fc.constantFrom(...HOSTILE.slice(0, 17)),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
      );
      fc.assert(
        fc.property(fc.array(fc.tuple(cell, cell), { minLength: 1, maxLength: 8 }), (rows) => {
          const csv = writeCsv(
            [
              { header: 'name', value: (r: [string, string]) => r[0] },
              { header: 'description', value: (r: [string, string]) => r[1] },
            ],
            rows,
          );
          const back = readCsv(csv);
          expect(back.ok).toBe(true);
          if (!back.ok) return;
          const cells = back.records.slice(1).map((r) => r.cells);
          const nonBlank = rows.filter((r) => !(r[0] === '' && r[1] === ''));
          expect(cells.length).toBeGreaterThanOrEqual(nonBlank.length);
          // Every written row comes back with its values (blank rows may be skipped).
          for (const r of nonBlank) expect(cells).toContainEqual([r[0], r[1]]);
        }),
        params,
      );
      return { outcome: 'no throw; round trip exact (formula guard undone)' };
    });
  });

  it('envelope parser: any body and status gives data or an ApiError, never a crash', async () => {
    await scenario(
      { scenario: 'input: envelope property', injected: 'arbitrary JSON / text bodies' },
      async () => {
        const body = fc.oneof(
          fc.json(),
          fc.string({ maxLength: 100 }),
          fc.jsonValue().map((v) => JSON.stringify({ error_code: v, error_message: v, data: v })),
          fc.jsonValue().map((v) => JSON.stringify({ result: v, data: v, total_count: v })),
        );
        fc.assert(
          fc.property(
            body,
            fc.constantFrom(200, 200, 201, 204, 400, 401, 403, 404, 429, 500, 503),
            (text, status) => {
              try {
                decodeEnvelope('GET /probe', { status, headers: {}, text, attempts: 1 });
              } catch (e) {
                expect(e).toBeInstanceOf(ApiError);
              }
            },
          ),
          params,
        );
        return { outcome: 'never throws anything but ApiError' };
      },
    );
  });

  it('renderers: 20 failed recipients with 10,000-char names stay within the 40,000-char text limit', () => {
    const sub = {
      id: 's',
      workspace: 'T1',
      channelId: 'C1',
      siteId: 'AB12',
      createdBy: 'U1',
      createdAt: '',
      statuses: [],
      mode: 'all',
    } as Subscription;
    const job: JobSummary = {
      workspace: 'T1',
      siteId: 'AB12',
      jobId: 7,
      contentId: '<!channel>'.repeat(20),
      status: 'DM600',
      regTimeMs: 0,
      updateTimeMs: 0,
      tasks: {
        total: 20,
        ready: 0,
        progressing: 0,
        completed: 0,
        failed: 20,
        failures: Array.from({ length: 20 }, (_, i) => ({
          dwmId: i,
          recipient: 'x'.repeat(10_000),
          status: 'TK005' as const,
          cliErrorCode: 'E',
        })),
      },
    };
    for (const r of [blockRenderer, plainRenderer]) {
      const m = r.renderThreadUpdate({ kind: 'final', summary: job, broadcast: true }, sub) as Message;
      expect(problemsOf(m)).toEqual([]);
    }
  });

  it('renderers: hostile service and user data render valid, within limits, ping-free', async () => {
    await scenario(
      { scenario: 'input: renderers property', injected: 'hostile audit/error/job data' },
      async () => {
        const sub: Subscription = {
          id: 's1',
          workspace: 'T1',
          channelId: 'C1',
          siteId: 'AB12',
          createdBy: 'U1',
          createdAt: new Date(0).toISOString(),
          statuses: [],
          mode: 'all',
        };
        fc.assert(
          fc.property(hostileArb, hostileArb, fc.integer({ min: 0, max: 30 }), (a, b, n) => {
            const entries = Array.from({ length: n }, (_, i) => ({
              id: `e${i}`,
              at: new Date(1_700_000_000_000 + i).toISOString(),
              userId: 'U1',
              action: a.slice(0, 300),
              detail: b,
              result: 'ok' as const,
            }));
            expect(problemsOf(auditListMessage(entries, 'UTC'))).toEqual([]);
            // (the `what` of renderError is bot-authored text: the command name, never user input)
            expect(
              problemsOf(
                renderError("Couldn't list jobs", new ServiceError('GET /x', b, a), { refId: 'r1' }),
              ),
            ).toEqual([]);
            const job: JobSummary = {
              workspace: 'T1',
              siteId: 'AB12',
              jobId: 1,
              contentId: a,
              status: 'DM600',
              regTimeMs: 0,
              updateTimeMs: 0,
              tasks: {
                total: n,
                ready: 0,
                progressing: 0,
                completed: 0,
                failed: n,
                failures: Array.from({ length: Math.min(n, 20) }, (_, i) => ({
                  dwmId: i,
                  recipient: b,
                  status: 'TK005' as const,
                  cliErrorCode: a.slice(0, 50),
                })),
              },
            };
            // blockRenderer: what the bot posts; plainRenderer: the text-only renderer (demo, tests).
            const failure = job.tasks!.failures[0] ?? {
              dwmId: 1,
              recipient: b,
              status: 'TK005' as const,
              cliErrorCode: a,
            };
            for (const [name, r] of [
              ['block', blockRenderer],
              ['plain', plainRenderer],
            ] as const) {
              const rendered = {
                card: r.renderJobCard(job, sub),
                final: r.renderThreadUpdate({ kind: 'final', summary: job, broadcast: false }, sub),
                taskFailed: r.renderThreadUpdate({ kind: 'task-failed', summary: job, failure }, sub),
                digest: r.renderDigest({ siteId: 'AB12', jobs: [job, job], completed: 0, failed: 2 }, sub),
              };
              for (const [what, m] of Object.entries(rendered)) {
                expect({ [`${name}.${what}`]: problemsOf(m as Message) }).toEqual({
                  [`${name}.${what}`]: [],
                });
              }
            }
          }),
          { ...params, numRuns: 60 },
        );
        return { outcome: 'audit list, error, job card/final/digest: valid, no ping' };
      },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Hostile strings end to end
// ---------------------------------------------------------------------------------------------

describe('hostile strings through the real app', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot();
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('every command with every hostile string: answered, no ping, no invalid_blocks / msg_too_long', async () => {
    await scenario(
      {
        scenario: 'input: hostile strings via app',
        injected: `${HOSTILE.length} hostile strings x commands`,
      },
      async () => {
        const cases = registryCases();
        const seq0 = lastSeq(bot);
        const problems: string[] = [];
        let sent = 0;
        for (const h of HOSTILE) {
          // Each command with the string as its arguments, plus the string as the whole command.
          const texts = [
            ...cases.map((c) => ({ c: c.command, t: `${c.text} ${h}` })),
            { c: '/dwm' as const, t: h },
          ];
          await Promise.all(
            texts.map(async ({ c, t }) => {
              const r = await bot.command(t, { command: c, user: bot.ws.admin });
              sent++;
              if (r.status !== 200) problems.push(`${t.slice(0, 40)}: HTTP ${r.status}`);
            }),
          );
        }
        // Wait for the commands' answers first: their own audit entries (refusals, subscriptions)
        // are written after the ack, and would push the hostile entries out of the latest 50.
        const since = () => bot.fake.calls().filter((c) => c.seq > seq0);
        await expect
          .poll(() => since().filter((c) => c.method === 'response_url').length >= sent * 0.9, {
            timeout: 60_000,
            interval: 100,
          })
          .toBe(true);
        // Hostile audit entries rendered by /drm audit.
        for (const h of HOSTILE) {
          await bot.store.audit.append(bot.ws.teamId, {
            userId: bot.ws.member,
            action: 'hostile.test',
            detail: h,
            result: 'ok',
          });
        }
        const seq = lastSeq(bot);
        await bot.command('audit 50', { command: '/drm', user: bot.ws.admin });
        await waitReplies(bot, seq);
        // Wait for the audit list (a condition, not a time: the machine may be busy).
        await expect
          .poll(
            () =>
              since().filter((c) => c.method === 'response_url').length >= sent * 0.9 &&
              said(since()).includes('hostile.test'),
            { timeout: 60_000, interval: 100 },
          )
          .toBe(true);
        const calls = bot.fake.calls().filter((c) => c.seq > seq0);
        // The bot names real users itself ("asked by <@U…>", the audit list): those mentions are its
        // own. Pings that come from input (<!channel>, <@U123>, <@U0EVIL99>...) are the failure.
        const own = new RegExp(`<@(${bot.ws.admin}|${bot.ws.member})>`, 'g');
        for (const c of calls) {
          if (!c.ok && c.error !== 'expired_trigger_id')
            problems.push(`${c.method}: ${c.error} ${JSON.stringify(c.args).slice(0, 200)}`);
          const text = JSON.stringify(c.args).replace(own, '');
          if (PING.test(text)) {
            const at = text.search(PING);
            problems.push(
              `${c.method}: ping ${text.match(PING)?.[0]} in …${text.slice(Math.max(0, at - 150), at + 40)}`,
            );
          }
        }
        expect(calls.filter((c) => c.method === 'response_url').length).toBeGreaterThanOrEqual(sent * 0.9);
        expect(said(calls)).toContain('hostile.test');
        expect([...new Set(problems)]).toEqual([]);
        return { outcome: `${sent} commands + audit list: ${calls.length} Slack calls, 0 rejected, 0 pings` };
      },
    );
  });
});

describe('hostile strings from the service', () => {
  it('content ids and recipient names from the service never ping or break a notification', async () => {
    await scenario(
      {
        scenario: 'input: hostile service data -> watcher',
        injected: 'hostile content ids / recipient names',
      },
      async () => {
        const rig = await startWatchRig();
        try {
          const w = rig.watcher();
          await subscribeAll(rig, w);
          const hostile = HOSTILE.filter((h) => h.length < 6000);
          const jobs: number[] = [];
          for (let i = 0; i < hostile.length; i += 3) {
            const batch = hostile.slice(i, i + 3).map((h, k) => {
              // The emulator (like the service) refuses such recipient names; content ids and
              // cli error codes are free text. (Hostile recipient names: the renderer property.)
              const recipients = Array.from({ length: 21 }, (_, r) => ({
                recipient: `hostile-${i + k}-${r}`,
              }));
              return rig.emu.createJob(SITE, `${h}-${i + k}`, recipients);
            });
            jobs.push(...batch);
            rig.clock.advance(60_000);
            await w.pollOnce(rig.ws.teamId, SITE);
            for (const [k, j] of batch.entries()) {
              const job = rig.emu.getJob(SITE, j)!;
              expect(job).toBeDefined();
              const tasks = await rig.api.watermarking(rig.creds.watermarking!).getJobTasks(SITE, j);
              rig.emu.finishJob(SITE, j, {
                failDwmIds: tasks.items.map((t) => t.dwmId),
                cliErrorCode: hostile[i + k]!.slice(0, 200),
              });
            }
            rig.clock.advance(60_000);
            await w.pollOnce(rig.ws.teamId, SITE);
          }
          const problems: string[] = [];
          for (const c of rig.fake.calls()) {
            if (!c.ok) problems.push(`${c.method}: ${c.error}`);
            // "Watch by <@creator>" is the bot's own mention of a real user (reported separately:
            // it notifies the creator on every card); pings from the service's data are the failure.
            const text = JSON.stringify(c.args).replace(new RegExp(`<@${rig.ws.admin}>`, 'g'), '');
            const at = text.search(PING);
            if (at >= 0) problems.push(`${c.method}: ping …${text.slice(Math.max(0, at - 120), at + 30)}`);
          }
          const c = completeness(rig.keys(), rig.ws.teamId, rig.ws.channel, jobs, 'DM600');
          expect([...new Set(problems)]).toEqual([]);
          expect(c.missing).toEqual([]);
          return {
            outcome: `${jobs.length} hostile jobs notified, 0 pings, 0 Slack rejections`,
            lost: c.lost,
            duplicated: c.duplicated,
          };
        } finally {
          await rig.close();
        }
      },
    );
  });
});
