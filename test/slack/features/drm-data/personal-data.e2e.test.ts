/**
 * End viewers' personal data (end-user and device ids): `/drm licenses|users|devices|cids|packaging`,
 * their paging buttons and CSV exports are for admins by default; PERSONAL_DATA_USERGROUP opens
 * them to the members of those Slack user groups (never to guests). `/drm stats` (monthly counts)
 * stays open to members. Signed requests through the harness, the emulator and the fake Slack.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { button, drm, lastSeq, textOf } from '../../../support/slack.js';

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const PERSONAL = ['licenses', 'users', 'devices', 'cids', 'packaging'];

/** Click a button of a message as `user` and return the reply (response_url) after it. */
async function clickAs(b: TestBot, btn: { action_id: string; value?: string }, user: string) {
  const seq = lastSeq(b);
  await b.action({ actionId: btn.action_id, value: btn.value!, user });
  return b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
}

describe("end viewers' personal data", () => {
  it('admin-only by default: members are refused the commands, the paging and the export (audited)', async () => {
    bot = await startTestBot({ credentials: 'env' });
    const b = bot;
    for (const cmd of PERSONAL) {
      const r = await drm(b, cmd, b.ws.member);
      expect(r.text).toContain('Only admins can');
      expect(r.text).not.toContain('```');
    }
    const audit = await b.store.audit.list(b.ws.teamId);
    expect(audit.filter((e) => e.result === 'refused' && e.userId === b.ws.member).length).toBe(
      PERSONAL.length,
    );
    // Aggregate counts stay open.
    const stats = await drm(b, 'stats', b.ws.member);
    expect(stats.text).not.toContain('Only admins can');

    // The admin's table: a member clicking its buttons (e.g. a table shared in the channel) is refused.
    const table = await drm(b, 'licenses', b.ws.admin);
    expect(table.text).toContain('Licenses · DEMO');
    const next = await clickAs(
      b,
      button(table.blocks, (x) => x.action_id === 'svc_data_page_next'),
      b.ws.member,
    );
    expect(textOf(next)).toContain('Only admins can');
    const seq = lastSeq(b);
    const exp = await clickAs(
      b,
      button(table.blocks, (x) => x.action_id === 'svc_data_export'),
      b.ws.member,
    );
    expect(textOf(exp)).toContain('Only admins can');
    expect(b.fake.calls().some((c) => c.seq > seq && c.method === 'files.getUploadURLExternal')).toBe(false);
  });

  it('PERSONAL_DATA_USERGROUP opens them to that group only, never to a guest in it', async () => {
    bot = await startTestBot({
      credentials: 'env',
      env: { PERSONAL_DATA_USERGROUP: 'S0PDATA,S0OTHER', GUEST_ACCESS: 'member' },
    });
    const b = bot;
    const outsider = 'U0OUTSIDE';
    const guest = 'U0GUEST01';
    b.fake.addUser(b.ws.teamId, { id: outsider, name: 'outsider', tz: 'UTC' });
    b.fake.addUser(b.ws.teamId, { id: guest, name: 'guest', tz: 'UTC', isRestricted: true });
    b.fake.setUsergroup(b.ws.teamId, 'S0PDATA', [b.ws.member, guest]);

    for (const cmd of PERSONAL) {
      const r = await drm(b, cmd, b.ws.member);
      expect(r.text).not.toContain('Only admins can');
    }
    const table = await drm(b, 'licenses', b.ws.member);
    const next = await clickAs(
      b,
      button(table.blocks, (x) => x.action_id === 'svc_data_page_next'),
      b.ws.member,
    );
    expect(textOf(next)).toContain('Rows 26–50');

    expect((await drm(b, 'users', outsider)).text).toContain('Only admins can');
    expect((await drm(b, 'users', guest)).text).toContain('Only admins can');
  });
});
