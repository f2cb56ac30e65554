/**
 * The Service API's sub-members of the account: the list, a new member (by e-mail, in a group),
 * a password reset, and a change of a member's status or group.
 */
import { z } from 'zod';
import { MEMBER_GROUP_SEQS, MEMBER_STATUS, type MemberStatusCode } from '../codes.js';
import { listOf, parseWith } from '../envelope.js';
import { codeOf, intLike, reqText, text } from '../fields.js';
import type { ServiceClient } from '../types.js';
import { assertValid, checkCode, checkEmail, checkPageQuery, checkPositiveInt } from '../validate.js';
import type { ServiceCall } from './call.js';
import { ep, orZero, svcPage } from './parse.js';

const subMemberSchema = z.object({
  group_name: text,
  group_seq: orZero,
  member_seq: intLike,
  member_email: reqText,
  status_code: codeOf(Object.keys(MEMBER_STATUS) as MemberStatusCode[], 'member status_code'),
  reg_date: text,
});

const memberSeqSchema = z.object({ member_seq: intLike });

export type MemberEndpoints = Pick<
  ServiceClient,
  'listSubMembers' | 'createSubMember' | 'resetSubMemberPassword' | 'updateSubMember'
>;

export function memberEndpoints(call: ServiceCall): MemberEndpoints {
  return {
    async listSubMembers(query = {}) {
      const name = 'listSubMembers';
      assertValid(ep(name), checkPageQuery(query));
      const env = await call(name, 'GET', '/account/member', {
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
      });
      const items = parseWith(ep(name), listOf(subMemberSchema), env.data).map((w) => ({
        groupName: w.group_name,
        groupSeq: w.group_seq,
        memberSeq: w.member_seq,
        email: w.member_email,
        status: w.status_code,
        regDate: w.reg_date,
      }));
      return svcPage(items, env, query);
    },

    async createSubMember(email, groupSeq) {
      const name = 'createSubMember';
      assertValid(ep(name), [
        ['e-mail', checkEmail(email)],
        ['group', groupSeq === undefined ? null : checkCode(String(groupSeq), MEMBER_GROUP_SEQS, 'Group')],
      ]);
      const env = await call(name, 'POST', '/account/member', { member_email: email, group_seq: groupSeq });
      return { memberSeq: parseWith(ep(name), memberSeqSchema, env.data).member_seq };
    },

    async resetSubMemberPassword(memberSeq) {
      const name = 'resetSubMemberPassword';
      assertValid(ep(name), [['member', checkPositiveInt(memberSeq, 'Member number')]]);
      await call(name, 'PUT', '/account/member/repw', { member_seq: memberSeq });
    },

    async updateSubMember(update) {
      const name = 'updateSubMember';
      assertValid(ep(name), [
        ['member', checkPositiveInt(update.memberSeq, 'Member number')],
        [
          'status',
          update.status === undefined
            ? null
            : checkCode(update.status, Object.keys(MEMBER_STATUS), 'Member status'),
        ],
        [
          'group',
          update.groupSeq === undefined
            ? null
            : checkCode(String(update.groupSeq), MEMBER_GROUP_SEQS, 'Group'),
        ],
        [
          'update',
          update.status === undefined && update.groupSeq === undefined
            ? 'Nothing to change: give a new status, a new group, or both.'
            : null,
        ],
      ]);
      await call(name, 'PUT', '/account/member', {
        member_seq: update.memberSeq,
        member_status: update.status,
        group_seq: update.groupSeq,
      });
    },
  };
}
