/**
 * `/drm licenses|users|devices|cids|packaging|stats` and the admin commands (`members`,
 * `settings`, `fpscert`) end to end through signed requests, the emulator and the fake Slack.
 */
import { createHash } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import {
  actionElements,
  button,
  click,
  drm,
  lastSeq,
  selectValue,
  textOf,
  textValue,
} from '../../../support/slack.js';

let bot: TestBot;
let admin: string;
let member: string;

beforeAll(async () => {
  // End viewers' personal data (licenses, users, devices, cids, packaging) is for admins and the
  // PERSONAL_DATA_USERGROUP user groups: the member of these tests is in that group.
  bot = await startTestBot({ credentials: 'env', env: { PERSONAL_DATA_USERGROUP: 'S0PDATA' } });
  admin = bot.ws.admin;
  member = bot.ws.member;
  bot.fake.setUsergroup(bot.ws.teamId, 'S0PDATA', [member]);
});
afterAll(async () => {
  await bot?.close();
});

describe('DRM data tables', () => {
  it('licenses: failures first, a code-block table within limits, paging replaces the card', async () => {
    const r = await drm(bot, 'licenses', member);
    expect(r.text).toContain('Licenses · DEMO');
    expect(r.text).toContain('```');
    expect(r.text).toContain('Rows 1–25');
    const table = r.blocks.find((b) => b.type === 'section' && b.text?.text.startsWith('```'));
    expect(table.text.text.length).toBeLessThanOrEqual(3000);
    // Failures are listed first on the page.
    const lines: string[] = table.text.text.split('\n').slice(1);
    const firstOk = lines.findIndex((l) => /\bok\b/.test(l));
    const lastFail = lines.map((l) => l.includes('FAIL')).lastIndexOf(true);
    if (lastFail >= 0 && firstOk >= 0) expect(lastFail).toBeLessThan(firstOk);
    const ids = actionElements(r.blocks).map((b) => b.action_id);
    expect(ids).toEqual(['svc_data_export', 'svc_data_page_next']);

    const next = await click(
      bot,
      button(r.blocks, (b) => b.action_id === 'svc_data_page_next'),
      member,
    );
    expect(next.call.args.replace_original).toBe(true);
    expect(next.text).toContain('Rows 26–50');
    expect(actionElements(next.blocks).map((b) => b.action_id)).toContain('svc_data_page_prev');
  });

  it('filters: status, one search option, DRM type names; invalid input explained', async () => {
    const fail = await drm(bot, 'licenses status:fail drm:widevine', member);
    expect(fail.text).toContain('status:fail');
    expect(fail.text).not.toMatch(/\bok\b {2}/);
    const two = await drm(bot, 'licenses cid:a user:b', member);
    expect(two.text).toContain('Only one of cid:, drm:, user:, device:, model:');
    const drmType = await drm(bot, 'licenses drm:vhs', member);
    expect(drmType.text).toContain('is not a DRM type');
    const date = await drm(bot, 'licenses from:2026-02-30', member);
    expect(date.text).toContain(':pencil2: *Nothing was run: check what you typed');
    const status = await drm(bot, 'licenses status:maybe', member);
    expect(status.text).toContain('must be one of success, fail');
  });

  it('users, devices, cids render tables', async () => {
    const u = await drm(bot, 'users', member);
    expect(u.text).toContain('Users · DEMO');
    expect(u.text).toContain('LICENSES');
    const one = await drm(bot, 'users user1007', member);
    expect(one.text).toContain('user:user1007');
    const d = await drm(bot, 'devices site:AB12', member);
    expect(d.text).toContain('Devices · AB12');
    const c = await drm(bot, 'cids status:fail', member);
    expect(c.text).toContain('Content ids · DEMO');
  });

  it('Export CSV of more than one page goes to the DM with progress, then the file', async () => {
    // The seeded site has 500 licenses; the first page (1000 rows) is served by a fault rule so
    // the export needs two pages (the second, real one, ends the range).
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      cid: i === 0 ? '=HYPERLINK("x")' : `cid-${i}`,
      status: 'success',
      error_code: '0000',
      drm_type: 'Widevine',
      user_id: `u${i}`,
      device_id: `d${i}`,
      device_model: 'Pixel',
      license_type: 'token',
      platform_name: 'Android',
      reg_time: '20260101120000',
    }));
    const r = await drm(bot, 'licenses', member);
    const exportBtn = button(r.blocks, (b) => b.action_id === 'svc_data_export');
    bot.emulator!.faults.add({
      match: 'GET /svc/api/v2/drm/license',
      times: 1,
      body: { error_code: '0000', error_message: 'Success', count: 1000, data: rows },
    });
    const seq = lastSeq(bot);
    const note = await click(bot, exportBtn, member);
    expect(note.text).toContain('direct messages');
    const done = await bot.fake.waitFor(
      (c) => c.method === 'chat.update' && c.seq > seq && textOf(c).includes('Exported'),
      15_000,
    );
    expect(textOf(done)).toContain('Exported 1,000 licenses of site');
    expect(textOf(done)).toContain('2 pages');
    const progress = bot.fake
      .calls('chat.update')
      .filter((c) => c.seq > seq && textOf(c).includes('fetched'));
    expect(progress.length).toBeGreaterThanOrEqual(1);
    const upload = bot.fake.calls('files.completeUploadExternal').filter((c) => c.seq > seq);
    expect(upload).toHaveLength(1);
    const channel = String(upload[0]!.args.channel_id);
    expect(channel.startsWith('D')).toBe(true);
    const fileId = ((upload[0]!.args.files as Array<{ id: string }>)[0] as { id: string }).id;
    const file = bot.fake.file(fileId)!;
    const csv = file.data.toString('utf8');
    expect(csv.trim().split('\r\n')).toHaveLength(1001);
    expect(csv).toContain(`'=HYPERLINK`);
    expect(file.name).toBe('drm-licenses-DEMO.csv');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit.find((e) => e.action === 'drm.export.licenses')?.detail).toContain('1000');
    // Nothing of the export went to the channel.
    expect(bot.fake.messages(bot.ws.channel).some((m) => m.files?.length)).toBe(false);
  });

  it('a shared table names its zone (not "your"); Export CSV from it by another reader keeps the table\'s days', async () => {
    // The admin reads Asia/Seoul days, the member America/New_York (the test workspace's users).
    const own = await drm(bot, 'licenses from:30d to:today', admin);
    expect(own.text).toContain('in your time zone (Asia/Seoul)');
    const shared = await drm(bot, 'licenses from:30d to:today share', admin);
    expect(shared.call.args.response_type).toBe('in_channel');
    expect(shared.text).not.toMatch(/\byour (time )?zone\b/);
    expect(shared.text).toContain('in the Asia/Seoul time zone');
    const posted = bot.fake.messages(bot.ws.channel).find((m) => m.text === shared.call.args.text);
    expect(posted).toBeTruthy();
    // The member clicks Export CSV on the channel's table: the days are the table's (Seoul).
    const exportBtn = button(shared.blocks, (b) => b.action_id === 'svc_data_export');
    const seq = lastSeq(bot);
    await bot.action({
      actionId: exportBtn.action_id,
      value: exportBtn.value!,
      user: member,
      messageTs: posted!.ts,
    });
    const done = await bot.fake.waitFor(
      (c) => c.method === 'chat.update' && c.seq > seq && textOf(c).includes('Exported'),
      15_000,
    );
    expect(textOf(done)).toMatch(
      /Days \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d in the Asia\/Seoul time zone, as on the table/,
    );
  });

  it('packaging: keyset "More" adds the next page below', async () => {
    const r = await drm(bot, 'packaging', member);
    expect(r.text).toContain('Packaging history · DEMO');
    const more = button(r.blocks, (b) => b.action_id === 'svc_packaging_more');
    const next = await click(bot, more, member);
    expect(next.text).toContain('(continued)');
    expect(next.call.args.replace_original).toBeUndefined();
    // The first page's rows are not repeated.
    const firstCids = new Set(
      (r.blocks.find((b) => b.text?.text.startsWith('```')).text.text as string).match(
        /demo-[a-z0-9-]+-\d{4}/g,
      ),
    );
    const nextCids = (next.blocks.find((b) => b.text?.text.startsWith('```')).text.text as string).match(
      /demo-[a-z0-9-]+-\d{4}/g,
    );
    expect(firstCids.size).toBeGreaterThan(5);
    expect(nextCids?.length).toBeGreaterThan(5);
    expect(nextCids?.some((c) => firstCids.has(c))).toBe(false);
  });

  it('stats: month figures with change; invalid dates explained', async () => {
    const r = await drm(bot, 'stats', member);
    expect(r.text).toContain('Monthly stats · DEMO');
    expect(r.text).toMatch(/vs [\d,]+/);
    const bad = await drm(bot, 'stats 2026-13', member);
    expect(bad.text).toContain('not a real month');
    const bad2 = await drm(bot, 'stats yesterday', member);
    expect(bad2.text).toContain('is not a date');
  });
});

describe('members (admin)', () => {
  it('members are refused; admins see the list, inactive first', async () => {
    const refused = await drm(bot, 'members', member);
    expect(refused.text).toContain('Only admins can run /drm members');
    const r = await drm(bot, 'members', admin);
    expect(r.text).toContain('ops.lead@demo-streaming.example');
    expect(r.text.indexOf('qa.contractor')).toBeLessThan(r.text.indexOf('ops.lead'));
    expect(r.text).toContain(':white_circle: Inactive');
  });

  it('deactivate (confirm, danger) and reset password replace the list with what was done; audited', async () => {
    const r = await drm(bot, 'members', admin);
    const deact = actionElements(r.blocks).find((b) => b.action_id === 'svc_member_deactivate')!;
    expect(deact.style).toBe('danger');
    expect(JSON.stringify(deact.confirm)).toContain('can no longer sign in');
    const refused = await click(bot, deact, member);
    expect(refused.text).toContain('Only admins');
    const done = await click(bot, deact, admin);
    expect(done.call.args.replace_original).toBe(true);
    expect(done.text).toContain('deactivated');
    const again = await click(bot, deact, admin);
    expect(again.text).toContain('already inactive');
    const reset = actionElements(r.blocks).find((b) => b.action_id === 'svc_member_reset_pw')!;
    const ok = await click(bot, reset, admin);
    expect(ok.text).toContain('reset the password');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit.map((e) => `${e.action}:${e.result}`)).toEqual(
      expect.arrayContaining([
        'members.deactivate:ok',
        'members.deactivate:error',
        'members.resetPassword:ok',
      ]),
    );
  });

  it('change group: modal opens, submit moves the member and replaces the list', async () => {
    const r = await drm(bot, 'members', admin);
    const change = actionElements(r.blocks).find((b) => b.action_id === 'svc_member_group')!;
    const seq = lastSeq(bot);
    await bot.action({ actionId: change.action_id, value: change.value!, user: admin });
    await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq, 5000);
    const v = bot.fake.lastView(admin, 'modal');
    expect(v?.callbackId).toBe('svc_member_group');
    const seq2 = lastSeq(bot);
    await bot.viewSubmission({ user: admin, values: { svc_member_group: selectValue('1014') } });
    const resp = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq2, 8000);
    expect(textOf(resp)).toContain('to Clients');
    expect(resp.args.replace_original).toBe(true);
  });

  it('change group: a member list that cannot be read again after the change still says it was made', async () => {
    const r = await drm(bot, 'members', admin);
    const change = actionElements(r.blocks).find((b) => b.action_id === 'svc_member_group')!;
    // Another group than the member's own (their row on the card names it: "… · TS · no. …").
    const row = JSON.stringify(r.blocks).match(/ · (BIZ|TS|Clients) · no\. /)?.[1];
    const target = row === 'TS' ? '1000' : '1001';
    const seq = lastSeq(bot);
    await bot.action({ actionId: change.action_id, value: change.value!, user: admin });
    await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq, 5000);
    // The change looks the member up (one list read), sends it, then reads the list again: only
    // that second read fails (a service error, not retried).
    bot.emulator!.faults.add({
      match: 'GET /svc/api/v2/account/member',
      skip: 1,
      times: 1,
      errorCode: { code: 'E9999', message: 'list unavailable' },
    });
    const seq2 = lastSeq(bot);
    try {
      await bot.viewSubmission({ user: admin, values: { svc_member_group: selectValue(target) } });
      const told = await bot.fake.waitFor(
        (c) => c.method === 'response_url' && c.seq > seq2 && textOf(c).includes('moved'),
        8000,
      );
      // Told as a new line (the card with the list could not be redrawn).
      expect(told.args.replace_original).not.toBe(true);
    } finally {
      bot.emulator!.faults.clear();
    }
    const said = bot.fake
      .calls()
      .filter((c) => c.seq > seq2)
      .map((c) => JSON.stringify(c.args))
      .join('\n');
    expect(said).not.toContain('was not changed');
  });

  it('members add: bad e-mail refused, good one added', async () => {
    const bad = await drm(bot, 'members add not-an-email', admin);
    expect(bad.text).toContain(':pencil2: *Nothing was run: check what you typed');
    const ok = await drm(bot, 'members add new.person@example.com ts', admin);
    expect(ok.text).toContain('Sub-member added');
    expect(ok.text).toContain('TS');
  });
});

describe('settings (admin, masked, never in a channel)', () => {
  it('masks every secret, refuses share, and no secret reaches Slack or the logs', async () => {
    const creds = bot.config.envCredentials!.service!;
    const raw = await bot.deps.api.service(creds).getSettings('DEMO');
    const refused = await drm(bot, 'settings', member);
    expect(refused.text).toContain('Only admins');
    const shared = await drm(bot, 'settings share', admin);
    expect(shared.call.args.response_type).toBe('ephemeral');
    expect(shared.text).toContain('never posted in a channel');
    expect(shared.text).not.toContain('Site key');
    const r = await drm(bot, 'settings', admin);
    expect(r.call.args.response_type).toBe('ephemeral');
    expect(r.text).toContain('••••••••');
    expect(r.text).toContain('https://license.demo-streaming.example/callback');
    const traffic = JSON.stringify(bot.fake.calls()) + JSON.stringify(bot.fake.allMessages());
    const logs = bot.logs.text();
    for (const s of [raw.siteKey, raw.accessKey, raw.kmsToken, raw.iv]) {
      expect(traffic).not.toContain(s);
      expect(logs).not.toContain(s);
    }
    expect(bot.logs.leaked(bot.secrets())).toEqual([]);
  });

  it('edit: loading modal first, then the form; invalid values inline; saved and audited', async () => {
    const r = await drm(bot, 'settings', admin);
    const edit = button(r.blocks, (b) => b.action_id === 'svc_settings_edit');
    const seq = lastSeq(bot);
    await bot.action({ actionId: edit.action_id, value: edit.value!, user: admin });
    const open = await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 5000);
    expect(textOf(open)).toContain('Loading');
    await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq, 5000);
    expect(bot.fake.lastView(admin, 'modal')?.callbackId).toBe('svc_settings_edit');
    const bad = await bot.viewSubmission({
      user: admin,
      values: {
        svc_set_license_url: textValue('ftp://x'),
        svc_set_package_url: textValue(''),
        svc_set_token_duration: textValue('abc'),
      },
    });
    expect(bad.json).toMatchObject({
      response_action: 'errors',
      errors: {
        svc_set_license_url: expect.any(String),
        svc_set_token_duration: expect.stringContaining('seconds'),
      },
    });
    const seq2 = lastSeq(bot);
    const ok = await bot.viewSubmission({
      user: admin,
      values: {
        svc_set_license_url: textValue('https://new.example/license'),
        svc_set_package_url: textValue(''),
        svc_set_token_duration: textValue('7200'),
      },
    });
    expect(ok.json).toMatchObject({ response_action: 'update' });
    const saved = await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq2, 5000);
    expect(textOf(saved)).toContain('Saved the');
    const after = await drm(bot, 'settings', admin);
    expect(after.text).toContain('https://new.example/license');
    expect(after.text).toContain('7,200 s (2 h)');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit.find((e) => e.action === 'settings.update' && e.result === 'ok')?.detail).toContain(
      'tokenDuration',
    );
  });
});

describe('fpscert (admin)', () => {
  async function upload(name: string, bytes: Buffer | string): Promise<string> {
    const web = new WebClient(bot.ws.botToken, { slackApiUrl: bot.fake.apiUrl, retryConfig: { retries: 0 } });
    const r = (await web.files.uploadV2({ filename: name, file: Buffer.from(bytes) })) as unknown as {
      files: Array<{ files?: Array<{ id: string }>; id?: string }>;
    };
    const f = r.files[0]!;
    return f.files?.[0]?.id ?? f.id!;
  }
  const file = (id: string) => ({ file: { type: 'file_input', files: [{ id }] } });
  const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
  const keyBody = 'MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAL2x';
  const pem = `-----BEGIN PRIVATE KEY-----\n${keyBody}\n-----END PRIVATE KEY-----\n`;

  async function openForm(): Promise<void> {
    const seq = lastSeq(bot);
    await bot.command('fpscert', { command: '/drm', user: admin });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 5000);
    expect(bot.fake.lastView(admin, 'modal')?.callbackId).toBe('svc_fpscert');
  }

  /** Submits the three files; returns the view the bot showed after the ack. */
  async function submitFiles(secrets: string, key = pem) {
    const values = {
      svc_fps_cert: file(await upload('fps.der', Buffer.from([0x30, 0x82, 0x01, 0x0a, 1, 2, 3]))),
      svc_fps_key_file: file(await upload('key.pem', key)),
      svc_fps_secrets_file: file(await upload('fps-secrets.txt', secrets)),
    };
    const seq = lastSeq(bot);
    const sub = await bot.viewSubmission({ user: admin, values });
    expect(sub.json).toMatchObject({ response_action: 'update' });
    const upd = await bot.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seq && !textOf(c).includes('Registering'),
      8000,
    );
    return { upd, seq };
  }

  /** The block right after an input block of the view a call showed. */
  function under(call: { args: Record<string, unknown> }, blockId: string): string {
    const blocks = (call.args.view as { blocks: Array<{ block_id?: string }> }).blocks;
    return JSON.stringify(blocks[blocks.findIndex((b) => b.block_id === blockId) + 1] ?? {});
  }

  it('members refused; missing files are inline errors; the secrets reach the service from the files; nothing secret echoed', async () => {
    const refused = await drm(bot, 'fpscert', member);
    expect(refused.text).toContain('Only admins');
    await openForm();

    const missing = await bot.viewSubmission({ user: admin, values: {} });
    expect(missing.json).toMatchObject({
      response_action: 'errors',
      errors: {
        svc_fps_cert: expect.any(String),
        svc_fps_key_file: expect.stringContaining('.pem file'),
        svc_fps_secrets_file: expect.stringContaining('ASK=… and PASSWORD=…'),
      },
    });

    const ask = 'ask-0123456789abcdef0123456789abcdef';
    const pw = 'hunter2 secret pw';
    const before = bot.emulator!.certificateUploads('DEMO').length;
    // Windows line ends, lower-case names, a colon and quotes: read tolerantly.
    const { upd, seq } = await submitFiles(`ask: ${ask}\r\npassword = "${pw}"\r\n`);
    expect(textOf(upd)).toContain('Registered the FairPlay certificate');
    expect(textOf(upd)).toContain('and the secrets file fps-secrets.txt');
    const uploads = bot.emulator!.certificateUploads('DEMO');
    expect(uploads).toHaveLength(before + 1);
    expect(uploads.at(-1)).toMatchObject({
      fpsCertFilename: 'fps.der',
      fpsCertBytes: 7,
      privateKeyFilename: 'key.pem',
      privateKeyBytes: Buffer.byteLength(pem),
      askSha256: sha256(ask),
      keyPwSha256: sha256(pw),
    });
    expect(bot.fake.calls('download').filter((c) => c.seq > seq && c.ok)).toHaveLength(3);
    const everything =
      JSON.stringify(bot.fake.calls().filter((c) => !c.method.startsWith('files.'))) +
      bot.logs.text() +
      JSON.stringify(await bot.store.audit.list(bot.ws.teamId));
    // Secrets never in a reply, a Slack call (other than the test's own uploads), a log line or
    // the audit: the ASK, the password, the key's content.
    expect(everything).not.toContain(ask);
    expect(everything).not.toContain(pw);
    expect(everything).not.toContain(keyBody);
  });

  it('registered, but Slack does not take the view saying so: a message says registered, never "not registered"', async () => {
    await openForm();
    const before = bot.emulator!.certificateUploads('DEMO').length;
    bot.fake.fail('views.update', { status: 500, times: 10 });
    let seq: number;
    try {
      ({ seq } = await submitFiles('ASK=ask-0123456789abcdef0123456789abcdef\nPASSWORD=pw-outage\n'));
      await bot.fake.waitFor(
        (c) =>
          c.seq > seq &&
          c.ok &&
          c.method === 'chat.postMessage' &&
          textOf(c).includes('Registered the FairPlay'),
        8000,
      );
    } finally {
      bot.fake.clearFailures();
    }
    expect(bot.emulator!.certificateUploads('DEMO')).toHaveLength(before + 1);
    const said = bot.fake
      .calls()
      .filter((c) => c.seq > seq)
      .map(textOf)
      .join('\n');
    expect(said).not.toContain('was not registered');
  });

  it('a form opened by an older version (pasted key, ASK and password as text) is refused, its text never used', async () => {
    await openForm();
    const before = bot.emulator!.certificateUploads('DEMO').length;
    const certId = await upload('fps.der', Buffer.from([0x30, 0x82, 0x01, 0x0a, 1, 2, 3]));
    const pastedBody = 'MIICdgIBADANBgkqhkiG9w0BAQEFAASCpasted0000';
    const oldAsk = 'ask-typed-into-an-old-form-0000';
    const oldPw = 'pw-typed-into-an-old-form';
    const old = await bot.viewSubmission({
      user: admin,
      values: {
        svc_fps_cert: file(certId),
        svc_fps_key_file: file(await upload('key.pem', pem)),
        svc_fps_ask: textValue(oldAsk),
        svc_fps_pw: textValue(oldPw),
      },
    });
    expect(old.json).toMatchObject({
      response_action: 'errors',
      errors: { svc_fps_ask: expect.stringContaining('run /drm fpscert again') },
    });
    const pasted = await bot.viewSubmission({
      user: admin,
      values: {
        svc_fps_cert: file(certId),
        svc_fps_key: textValue(`-----BEGIN PRIVATE KEY-----\n${pastedBody}\n-----END PRIVATE KEY-----`),
        svc_fps_secrets_file: file(await upload('s.txt', 'ASK=a1\nPASSWORD=p1\n')),
      },
    });
    expect(pasted.json).toMatchObject({
      response_action: 'errors',
      errors: { svc_fps_key: expect.stringContaining('a pasted key is not accepted') },
    });
    expect(bot.emulator!.certificateUploads('DEMO')).toHaveLength(before);
    const everything = JSON.stringify(bot.fake.calls()) + bot.logs.text();
    for (const secret of [pastedBody, oldAsk, oldPw]) expect(everything).not.toContain(secret);
  });

  it.each([
    ['without a password', 'ASK=abc123\n', 'no PASSWORD line'],
    [
      'with a password over 32 bytes',
      `ASK=abc123\nPASSWORD=${'p'.repeat(33)}\n`,
      '33 bytes; the limit is 32',
    ],
    ['in another format', 'abc123\nsecret-pw-9876\n', 'Line 1 of the secrets file is not ASK='],
  ])('a secrets file %s comes back under its input; nothing is sent', async (_name, secrets, says) => {
    await openForm();
    const before = bot.emulator!.certificateUploads('DEMO').length;
    const { upd } = await submitFiles(secrets);
    expect(textOf(upd)).toContain('was not registered');
    expect(under(upd, 'svc_fps_secrets_file')).toContain(says);
    expect(under(upd, 'svc_fps_key_file')).not.toContain(':warning:');
    expect(bot.emulator!.certificateUploads('DEMO')).toHaveLength(before);
    expect(
      JSON.stringify(bot.fake.calls().filter((c) => !c.method.startsWith('files.'))) + bot.logs.text(),
    ).not.toContain('secret-pw-9876');
  });

  it('a key file that is not PEM comes back under the key input; nothing is sent to the service', async () => {
    await openForm();
    const before = bot.emulator!.certificateUploads('DEMO').length;
    const { upd } = await submitFiles('ASK=abc123\nPASSWORD=pw\n', 'just some text, no key here');
    expect(under(upd, 'svc_fps_key_file')).toContain('key.pem is not a PEM private key');
    expect(bot.emulator!.certificateUploads('DEMO')).toHaveLength(before);
  });

  it('a key file larger than a key can be (a 1 MB PEM without its END line) comes back under the key input with the limit; nothing is sent', async () => {
    await openForm();
    const before = bot.emulator!.certificateUploads('DEMO').length;
    const hostile = `-----BEGIN PRIVATE KEY-----\n${`${'A'.repeat(63)}\n`.repeat(16_000)}`;
    const { upd } = await submitFiles('ASK=abc123\nPASSWORD=pw\n', hostile);
    expect(under(upd, 'svc_fps_key_file')).toContain('key.pem is');
    expect(under(upd, 'svc_fps_key_file')).toContain(`${32 * 1024}`);
    expect(bot.emulator!.certificateUploads('DEMO')).toHaveLength(before);
  });

  it('a wrong certificate file type comes back on the form with the reason', async () => {
    await openForm();
    const seq = lastSeq(bot);
    await bot.viewSubmission({
      user: admin,
      values: {
        svc_fps_cert: file(await upload('cert.txt', 'x')),
        svc_fps_key: file(await upload('key.pem', pem)),
        svc_fps_secrets_file: file(await upload('s.txt', 'ASK=abc123\nPASSWORD=pw\n')),
      },
    });
    const upd = await bot.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seq && !textOf(c).includes('Registering'),
      8000,
    );
    expect(textOf(upd)).toContain('was not registered');
    expect(textOf(upd)).toContain('.der');
  });
});
