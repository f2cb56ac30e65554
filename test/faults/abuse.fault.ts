/**
 * Abuse: request signatures (bad, missing, stale, future, replayed), the authorization matrix
 * (every admin-only registry entry as a member; every button an admin got, clicked by a member),
 * cross-workspace isolation (ids guessed), and secrets after a full session (logs, Slack payloads,
 * the SQLite store file).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../dev/fakeslack/index.js';
import { type SignatureMode, signatureHeaders, startTestBot, type TestBot } from '../harness/index.js';
import { lastSeq } from '../support/slack.js';
import {
  callsAfter,
  emulatorCounts,
  interactiveElements,
  registryCases,
  said,
  waitReplies,
} from './support/bot.js';
import { scenario } from './support/summary.js';
import { unhandledSoFar } from './support/unhandled.js';

describe('signatures', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot();
  });
  afterAll(async () => {
    await bot?.close();
  });

  const modes: Array<[string, SignatureMode]> = [
    ['bad (wrong secret)', 'bad'],
    ['missing headers', 'missing'],
    ['stale (6 min old)', 'stale'],
    ['future (6 min ahead)', 'future'],
    ['signature of another body', { signature: 'v0=deadbeef' }],
    ['non-numeric timestamp', { timestamp: Number.NaN }],
  ];
  for (const [name, mode] of modes) {
    it(`refuses a ${name} signature; the handler never runs`, async () => {
      await scenario({ scenario: `abuse: signature ${name}`, injected: 'signed slash command' }, async () => {
        const seq = lastSeq(bot);
        const before = emulatorCounts(bot).total;
        const cmd = await bot.command('help', { signature: mode });
        const ev = await bot.event(
          { type: 'app_home_opened', user: bot.ws.member, tab: 'home' },
          { signature: mode },
        );
        expect(cmd.status).toBe(401);
        expect(ev.status).toBe(401);
        // The same request sent to paths that are not the Slack endpoint is answered, not run.
        for (const path of ['/slack/events/', '/healthz', '/anything']) {
          const r = await bot.send(
            path,
            'command=%2Fdwm&text=help',
            'application/x-www-form-urlencoded',
            mode,
          );
          expect([404, 405]).toContain(r.status);
        }
        await new Promise((r) => setTimeout(r, 300));
        expect(callsAfter(bot, seq)).toEqual([]);
        expect(emulatorCounts(bot).total).toBe(before);
        return { outcome: `401 x2, other paths 404/405, no Slack call, no service call` };
      });
    });
  }

  it('accepts the same request correctly signed (control)', async () => {
    const seq = lastSeq(bot);
    const r = await bot.command('help');
    expect(r.status).toBe(200);
    const replies = await waitReplies(bot, seq);
    expect(said(replies)).toContain('/dwm setup');
  });

  // Slack's scheme accepts a correctly signed request for 5 minutes; the app claims each
  // (timestamp, signature) pair once in the store (src/slack/app.ts rejectReplays).
  it('refuses a replayed request (same timestamp and signature)', async () => {
    const seq = lastSeq(bot);
    const form = new URLSearchParams({
      team_id: bot.ws.teamId,
      team_domain: bot.ws.teamDomain,
      channel_id: bot.ws.channel,
      user_id: bot.ws.member,
      command: '/dwm',
      text: 'help',
      api_app_id: 'A0FAKEAPP',
      response_url: bot.fake.responseUrl(bot.ws.teamId, { channel: bot.ws.channel, userId: bot.ws.member }),
      trigger_id: bot.fake.issueTrigger(bot.ws.teamId, bot.ws.member),
    }).toString();
    const headers = signatureHeaders(bot.signingSecret, form, 'valid');
    const post = () =>
      fetch(`${bot.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: form,
      });
    expect((await post()).status).toBe(200);
    await waitReplies(bot, seq);
    const seq2 = lastSeq(bot);
    await post();
    await new Promise((r) => setTimeout(r, 800));
    // A refused replay does no work: no second reply.
    expect(callsAfter(bot, seq2).filter((c) => c.method === 'response_url')).toEqual([]);
  });
});

describe('authorization matrix (from the registry)', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot();
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('every admin-only command is refused to a member, audited, and does no service call', async () => {
    const cases = registryCases((e) => e.role === 'admin');
    // The registry always has at least setup and audit; the matrix grows as commands land.
    expect(cases.length).toBeGreaterThanOrEqual(2);
    await scenario(
      { scenario: 'abuse: admin commands as member', injected: `${cases.length} admin commands (registry)` },
      async () => {
        const problems: string[] = [];
        for (const c of cases) {
          const seq = lastSeq(bot);
          const before = emulatorCounts(bot).total;
          const auditBefore = (await bot.store.audit.list(bot.ws.teamId)).length;
          await bot.command(c.text, { command: c.command, user: bot.ws.member });
          const calls = await waitReplies(bot, seq);
          const text = said(calls);
          if (!text.includes('Only admins')) problems.push(`${c.name}: not refused (${text.slice(0, 160)})`);
          if (calls.some((x) => x.method.startsWith('views.'))) problems.push(`${c.name}: opened a view`);
          if (emulatorCounts(bot).total !== before) problems.push(`${c.name}: called the service`);
          const audit = await bot.store.audit.list(bot.ws.teamId);
          if (audit.length !== auditBefore + 1 || audit[0]?.result !== 'refused')
            problems.push(`${c.name}: refusal not audited`);
        }
        expect(problems).toEqual([]);
        return { outcome: `${cases.length}/${cases.length} refused + audited, 0 service calls` };
      },
    );
  });

  it('every admin-only button, clicked by a member, is refused in words and changes nothing upstream', async () => {
    await scenario(
      { scenario: 'abuse: admin buttons replayed by member', injected: 'action ids from admin replies' },
      async () => {
        // What each role is shown for the same commands: the buttons only admins see are admin-only.
        const shown = async (user: string) => {
          const seq0 = lastSeq(bot);
          for (const c of registryCases()) {
            const seq = lastSeq(bot);
            await bot.command(c.text, { command: c.command, user });
            await waitReplies(bot, seq).catch(() => []);
          }
          return interactiveElements(callsAfter(bot, seq0));
        };
        const adminEls = await shown(bot.ws.admin);
        const memberIds = new Set((await shown(bot.ws.member)).map((e) => e.actionId));
        const adminOnly = adminEls.filter((e) => !memberIds.has(e.actionId));
        expect(adminOnly.length).toBeGreaterThan(0);
        const credsBefore = JSON.stringify(await bot.store.credentials.get(bot.ws.teamId));
        const upstreamBefore = bot.emulator!.stateSnapshot();
        const writesBefore = emulatorCounts(bot).writes;
        const notRefused: string[] = [];
        let refused = 0;
        let memberForms = 0;
        for (const el of adminOnly) {
          const seq = lastSeq(bot);
          const r = await bot.action({
            actionId: el.actionId,
            ...(el.blockId ? { blockId: el.blockId } : {}),
            ...(el.value !== undefined ? { value: el.value } : {}),
            user: bot.ws.member,
          });
          expect(r.status).toBe(200);
          const replies = await waitReplies(bot, seq).catch(() => []);
          // Either refused in words, or a form a member may use opened (a member may ask for a
          // trial extension); never silence, never a write (checked below).
          const openedForm = replies.some((c) => c.method === 'views.open' && c.ok);
          if (openedForm) memberForms++;
          else if (/Only admins can/.test(said(replies))) refused++;
          else notRefused.push(el.actionId);
        }
        expect(notRefused).toEqual([]);
        expect(refused).toBeGreaterThan(0);
        expect(emulatorCounts(bot).writes).toBe(writesBefore);
        expect(bot.emulator!.stateSnapshot()).toBe(upstreamBefore);
        expect(JSON.stringify(await bot.store.credentials.get(bot.ws.teamId))).toBe(credsBefore);
        return {
          outcome: `${adminOnly.length} buttons only admins are shown: ${refused} refused in words, ${memberForms} member forms; 0 upstream writes, upstream state and credentials unchanged`,
        };
      },
    );
  });
});

describe('admin-only forms submitted by a member', () => {
  let bot: TestBot;
  beforeAll(async () => {
    // Credentials in the vault (not the environment), so the setup form is editable and saves.
    bot = await startTestBot({ credentials: 'store' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
  const select = (value: string) => ({ value: { type: 'static_select', selected_option: { value } } });
  const file = (id: string) => ({ file: { type: 'file_input', files: [{ id }] } });

  /** Run an admin command (and click one of its buttons) and return the form it opened. */
  async function adminForm(cmd: string, command: '/dwm' | '/drm', buttonId?: string): Promise<FakeView> {
    const admin = bot.ws.admin;
    const seq = lastSeq(bot);
    await bot.command(cmd, { command, user: admin });
    if (buttonId) {
      const calls = await waitReplies(bot, seq);
      const el = interactiveElements(calls).find((e) => e.actionId === buttonId);
      if (!el) throw new Error(`no ${buttonId} button after ${command} ${cmd}`);
      const seq2 = lastSeq(bot);
      await bot.action({ actionId: el.actionId, ...(el.value ? { value: el.value } : {}), user: admin });
      await bot.fake
        .waitFor((c) => c.method === 'views.update' && c.seq > seq2 && c.ok, 8000)
        .catch(() => undefined);
    } else {
      await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq && c.ok, 8000);
    }
    await new Promise((r) => setTimeout(r, 200));
    return bot.fake.lastView(admin, 'modal') as FakeView;
  }

  it('every admin form, opened by an admin and submitted by a member with valid values, writes nothing', async () => {
    await scenario(
      { scenario: 'abuse: admin forms submitted by member', injected: '5 admin modals, valid values' },
      async () => {
        const web = new WebClient(bot.ws.botToken, {
          slackApiUrl: bot.fake.apiUrl,
          retryConfig: { retries: 0 },
        });
        const upload = async (name: string, data: Buffer) => {
          const r = (await web.files.uploadV2({ filename: name, file: data })) as unknown as {
            files: Array<{ files?: Array<{ id: string }>; id?: string }>;
          };
          return r.files[0]!.files?.[0]?.id ?? r.files[0]!.id!;
        };
        const emu = bot.emulator!;
        const forms: Array<{ name: string; view: FakeView; values: Record<string, unknown> }> = [
          {
            name: 'setup',
            view: await adminForm('setup', '/dwm'),
            values: {
              site_ids: text('DEMO'),
              default_site: text(''),
              wm_account_id: text(emu.demo.watermarking.accountId),
              wm_access_key: text(emu.demo.watermarking.accessKey),
              wm_base_url: text(emu.wmBaseUrl),
              svc_account_id: text(emu.demo.service.accountId),
              svc_account_seq: text(emu.demo.service.accountSeq),
              svc_secret_key: text(emu.demo.service.secretKey),
              svc_base_url: text(emu.serviceBaseUrl),
            },
          },
          {
            name: 'fpscert',
            view: await adminForm('fpscert', '/drm'),
            values: {
              svc_fps_cert: file(await upload('fps.der', Buffer.from([0x30, 0x82, 1, 2]))),
              svc_fps_key_file: file(
                await upload(
                  'key.pem',
                  Buffer.from(
                    '-----BEGIN PRIVATE KEY-----\nMIICdgIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n',
                  ),
                ),
              ),
              svc_fps_secrets_file: file(
                await upload('fps-secrets.txt', Buffer.from('ASK=ask-0123456789abcdef\nPASSWORD=pw\n')),
              ),
            },
          },
          {
            name: 'settings edit',
            view: await adminForm('settings', '/drm', 'svc_settings_edit'),
            values: {
              svc_set_license_url: text('https://evil.example/license'),
              svc_set_package_url: text(''),
              svc_set_token_duration: text('60'),
            },
          },
          {
            name: 'member group',
            view: await adminForm('members', '/drm', 'svc_member_group'),
            values: { svc_member_group: select('1014') },
          },
          {
            name: 'plan suspension',
            view: await adminForm('plan', '/drm', 'svc_plan_request_suspend'),
            values: { svc_plan_service: select('PD001'), svc_plan_message: text('member wants it off') },
          },
        ];
        const problems: string[] = [];
        for (const f of forms) {
          if (!f.view?.callbackId) {
            problems.push(`${f.name}: the admin's form did not open`);
            continue;
          }
          const writes = emulatorCounts(bot).writes;
          const creds = JSON.stringify(await bot.store.credentials.get(bot.ws.teamId));
          const certs = emu.certificateUploads('DEMO').length;
          const auditBefore = (await bot.store.audit.list(bot.ws.teamId)).length;
          const r = await bot.viewSubmission({ user: bot.ws.member, view: f.view, values: f.values });
          await new Promise((res) => setTimeout(res, 700));
          if (r.status !== 200) problems.push(`${f.name}: HTTP ${r.status}`);
          const answer = JSON.stringify(r.json ?? {});
          const later = JSON.stringify(
            bot.fake
              .calls()
              .slice(-5)
              .map((c) => c.args),
          );
          if (!/only admins|Only admins/.test(answer + later))
            problems.push(`${f.name}: no refusal shown (${answer.slice(0, 160)})`);
          if (emulatorCounts(bot).writes !== writes) problems.push(`${f.name}: wrote to the service`);
          if (emu.certificateUploads('DEMO').length !== certs)
            problems.push(`${f.name}: uploaded a certificate`);
          if (JSON.stringify(await bot.store.credentials.get(bot.ws.teamId)) !== creds)
            problems.push(`${f.name}: credentials changed`);
          const audit = await bot.store.audit.list(bot.ws.teamId);
          if (
            !audit
              .slice(0, audit.length - auditBefore)
              .some((e) => e.result === 'refused' && e.userId === bot.ws.member)
          )
            problems.push(`${f.name}: refusal not audited`);
        }
        expect(problems).toEqual([]);
        return { outcome: `${forms.length}/${forms.length} forms refused + audited, 0 service writes` };
      },
    );
  });
});

describe('workspace isolation', () => {
  let bot: TestBot;
  const siteB = 'BBBB';
  const markerB = `secret-b-${randomBytes(4).toString('hex')}`;
  const accountB = { accountId: 'acct-team-b', accessKey: `ak-b-${randomBytes(12).toString('hex')}` };
  beforeAll(async () => {
    bot = await startTestBot({ workspaces: 2 });
    const emu = bot.emulator!;
    emu.addWatermarkingAccount({ ...accountB, siteIds: [siteB] });
    emu.createJob(siteB, markerB, [{ recipient: 'bob-b' }]);
    const b = bot.workspaces[1]!;
    const current = await bot.store.credentials.get(b.teamId);
    await bot.store.credentials.put(b.teamId, {
      ...current!,
      credentials: {
        ...current!.credentials,
        siteIds: [siteB],
        defaultSiteId: siteB,
        watermarking: { ...accountB, baseUrl: emu.wmBaseUrl },
      },
    });
    await bot.store.audit.append(b.teamId, {
      userId: b.admin,
      action: 'command.marker',
      detail: markerB,
      result: 'ok',
    });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it("a user of workspace A never sees or acts on workspace B's data (site ids and team ids guessed)", async () => {
    await scenario(
      { scenario: 'abuse: cross-workspace ids', injected: "B's site id / team id from A's users" },
      async () => {
        const a = bot.workspaces[0]!;
        const b = bot.workspaces[1]!;
        const seq0 = lastSeq(bot);
        const leaks: string[] = [];
        // Every command, as A's admin, with B's site id guessed.
        for (const c of registryCases()) {
          const text = /\bsite:\S+/.test(c.text)
            ? c.text.replace(/\bsite:\S+/, `site:${siteB}`)
            : `${c.text} site:${siteB}`;
          const seq = lastSeq(bot);
          await bot.command(text, { command: c.command, team: a, user: a.admin });
          const out = said(await waitReplies(bot, seq).catch(() => []));
          if (out.includes(markerB) || out.includes(accountB.accountId))
            leaks.push(`${c.name} site:${siteB}`);
        }
        // A's admin id sent with B's team id (a guessed id): not an admin there. (Slack signs team_id,
        // so only Slack could send this; the bot must still not treat a foreign admin as B's admin.)
        for (const c of registryCases((e) => e.role === 'admin')) {
          const seq = lastSeq(bot);
          await bot.command(c.text, { command: c.command, team: b, user: a.admin, channel: b.channel });
          const out = said(await waitReplies(bot, seq).catch(() => []));
          // Slack does not know that user in B (users.info: user_not_found): with GUEST_ACCESS=none
          // (the default) such a user is refused everything ("couldn't check who you are").
          if (!out.includes('Only admins') && !out.includes("Couldn't confirm your account"))
            leaks.push(`team ${b.teamId}: ${c.name} not refused`);
          if (out.includes(markerB)) leaks.push(`team ${b.teamId}: ${c.name} showed B's data`);
        }
        expect(leaks).toEqual([]);
        const everything = said(callsAfter(bot, seq0));
        expect(everything).not.toContain(accountB.accessKey);
        // B's audit log only holds B's own entries.
        const auditB = await bot.store.audit.list(b.teamId);
        expect(auditB.filter((e) => e.userId === a.admin && e.result === 'ok')).toEqual([]);
        return { outcome: 'no B data in any reply to A; B audit untouched by A' };
      },
    );
  });
});

describe('secrets after a full session', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ workspaces: 2, store: 'sqlite', logLevel: 'debug' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('no access key, JWT secret, Slack token or signing secret in logs, Slack payloads or the store file', async () => {
    await scenario(
      { scenario: 'abuse: secrets after a session', injected: 'every command, setup save, bad signatures' },
      async () => {
        const emu = bot.emulator!;
        for (const ws of bot.workspaces) {
          for (const c of registryCases()) {
            for (const user of [ws.admin, ws.member]) {
              const seq = lastSeq(bot);
              await bot.command(c.text, { command: c.command, team: ws, user });
              await waitReplies(bot, seq).catch(() => []);
            }
          }
        }
        // The setup modal, saved through the vault (credentials typed by an admin).
        const ws = bot.ws;
        const seq = lastSeq(bot);
        await bot.command('setup', { user: ws.admin });
        await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 5000);
        const v = (s: string) => ({ value: { type: 'plain_text_input', value: s } });
        const seq2 = lastSeq(bot);
        await bot.viewSubmission({
          user: ws.admin,
          values: {
            site_ids: v('DEMO, AB12'),
            default_site: v(''),
            wm_account_id: v(emu.demo.watermarking.accountId),
            wm_access_key: v(emu.demo.watermarking.accessKey),
            wm_base_url: v(emu.wmBaseUrl),
            svc_account_id: v(emu.demo.service.accountId),
            svc_account_seq: v(emu.demo.service.accountSeq),
            svc_secret_key: v(emu.demo.service.secretKey),
            svc_base_url: v(emu.serviceBaseUrl),
          },
        });
        await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq2, 8000);
        await bot.command('help', { signature: 'bad' });
        await new Promise((r) => setTimeout(r, 300));

        // Besides the configured secrets: every watermarking token the emulator issued and every
        // Service API JWT it received during the session.
        const bearer = emu.credentialsSeen();
        expect(bearer.length).toBeGreaterThanOrEqual(2);
        expect(bearer.some((b) => b.startsWith('eyJ'))).toBe(true);
        const secrets = [...bot.secrets(), ...bearer];
        expect(secrets.length).toBeGreaterThanOrEqual(8);
        const inLogs = bot.logs.leaked(secrets);
        const slack = said(bot.fake.calls()) + JSON.stringify(bot.fake.allMessages());
        const inSlack = secrets.filter((s) => slack.includes(s));
        const file = bot.config.storeUrl.replace(/^sqlite:\/\//, '');
        let bytes = '';
        for (const f of [file, `${file}-wal`, `${file}-journal`]) {
          if (existsSync(f)) bytes += readFileSync(f).toString('latin1');
        }
        expect(bytes.length).toBeGreaterThan(0);
        const inStore = secrets.filter((s) => bytes.includes(s));
        const named = (list: string[]) => list.map((s) => `${s.slice(0, 4)}…(${s.length})`);
        expect({ logs: named(inLogs), slack: named(inSlack), store: named(inStore) }).toEqual({
          logs: [],
          slack: [],
          store: [],
        });
        expect(unhandledSoFar()).toEqual([]);
        return { outcome: `${secrets.length} secrets: 0 in logs, 0 in Slack payloads, 0 in store file` };
      },
    );
  });
});
