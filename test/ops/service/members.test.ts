import { describe, expect, it } from 'vitest';
import { RefusedError } from '../../../src/ops/service/common.js';
import {
  addMember,
  changeGroup,
  listMembers,
  parseEmail,
  parseGroup,
  resetPassword,
  setMemberActive,
} from '../../../src/ops/service/members.js';
import { FakeServiceClient } from '../../support/fake-service.js';

describe('members', () => {
  it('lists with group labels from MEMBER_GROUP and status', async () => {
    const c = new FakeServiceClient();
    const p = await listMembers(c);
    expect(p.items.map((m) => [m.email, m.groupLabel, m.statusLabel, m.active])).toEqual([
      ['a@example.com', 'BIZ', 'Active', true],
      ['b@example.com', 'TS', 'Inactive', false],
    ]);
  });

  it('parses groups by name or seq', () => {
    expect(parseGroup('biz')).toBe(1000);
    expect(parseGroup('TS')).toBe(1001);
    expect(parseGroup('clients')).toBe(1014);
    expect(parseGroup(1014)).toBe(1014);
    expect(parseGroup('1001')).toBe(1001);
    expect(() => parseGroup('admins')).toThrow(/use biz, ts or clients/);
  });

  it('validates e-mail addresses', () => {
    expect(parseEmail(' new@example.com ')).toBe('new@example.com');
    for (const bad of ['', 'no-at-sign', 'a@', '@b.com', 'a b@c.com', `${'x'.repeat(250)}@e.com`]) {
      expect(() => parseEmail(bad), bad).toThrow();
    }
  });

  it('adds a member with a group and refuses a bad e-mail before calling', async () => {
    const c = new FakeServiceClient();
    const r = await addMember(c, 'new@example.com', 'clients');
    expect(r).toEqual({ memberSeq: 100, email: 'new@example.com', groupSeq: 1014, groupLabel: 'Clients' });
    expect(c.callsOf('createSubMember')[0]?.args).toEqual(['new@example.com', 1014]);
    const noGroup = await addMember(c, 'other@example.com');
    expect(noGroup.groupSeq).toBeUndefined();
    await expect(addMember(c, 'nope', 'biz')).rejects.toThrow(/e-mail address/);
    expect(c.callsOf('createSubMember')).toHaveLength(2);
  });

  it('resets a password', async () => {
    const c = new FakeServiceClient();
    await expect(resetPassword(c, 2)).resolves.toEqual({ memberSeq: 2 });
    await expect(resetPassword(c, -1)).rejects.toThrow(/not valid/);
  });

  it('activates and deactivates, refusing a no-op with a message', async () => {
    const c = new FakeServiceClient();
    await expect(setMemberActive(c, 2, true)).resolves.toMatchObject({ status: 'MT001' });
    expect(c.members[1]?.status).toBe('MT001');
    const err = await setMemberActive(c, 1, true).catch((e) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect(err.reason).toBe('alreadyInState');
    expect(err.message).toMatch(/a@example.com is already active/);
    await expect(setMemberActive(c, 1, false)).resolves.toMatchObject({ status: 'MT002' });
    expect(c.callsOf('updateSubMember')).toHaveLength(2);
  });

  it('refuses an unknown member', async () => {
    const c = new FakeServiceClient();
    const err = await setMemberActive(c, 999, true).catch((e) => e);
    expect(err.reason).toBe('memberNotFound');
    expect(c.callsOf('updateSubMember')).toHaveLength(0);
  });

  it('changes group, refusing the same group', async () => {
    const c = new FakeServiceClient();
    await expect(changeGroup(c, 1, 'ts')).resolves.toMatchObject({ groupSeq: 1001, groupLabel: 'TS' });
    expect(c.callsOf('updateSubMember')[0]?.args).toEqual([{ memberSeq: 1, groupSeq: 1001 }]);
    await expect(changeGroup(c, 1, 1001)).rejects.toThrow(/already in the TS group/);
  });
});
