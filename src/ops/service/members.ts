/**
 * Sub-members (`/drm members`): list with status and group, add, reset password,
 * activate/deactivate, change group.
 */
import { z } from 'zod';
import {
  codeLabel,
  MEMBER_GROUP,
  MEMBER_GROUP_SEQS,
  MEMBER_STATUS,
  type MemberGroupSeq,
  type MemberStatusCode,
} from '../../api/codes.js';
import type { ServiceClient, SubMember } from '../../api/types.js';
import { checkEmail, LIMITS } from '../../api/validate.js';
import {
  invalid,
  opsEndpoint,
  type PageInput,
  type PageResult,
  RefusedError,
  toPageQuery,
  toPageResult,
} from './common.js';

export interface MemberView extends SubMember {
  /** "BIZ" / "TS" / "Clients" from MEMBER_GROUP, else the service's group_name. */
  groupLabel: string;
  /** "Active" / "Inactive". */
  statusLabel: string;
  active: boolean;
}

export function toMemberView(m: SubMember): MemberView {
  const group = MEMBER_GROUP[m.groupSeq as MemberGroupSeq];
  return {
    ...m,
    groupLabel: group?.name ?? m.groupName,
    statusLabel: codeLabel(MEMBER_STATUS, m.status),
    active: m.status === 'MT001',
  };
}

export async function listMembers(
  client: ServiceClient,
  page: PageInput = {},
): Promise<PageResult<MemberView>> {
  const q = toPageQuery(opsEndpoint('members.list'), page);
  return toPageResult(await client.listSubMembers(q), toMemberView);
}

/** Upper bound of pages read when looking a member up (1000 per page). */
const FIND_MAX_PAGES = 50;

/** Looks a member up by seq across the pages of the list; null when absent. */
export async function findMember(client: ServiceClient, memberSeq: number): Promise<MemberView | null> {
  for (let pageIndex = 1; pageIndex <= FIND_MAX_PAGES; pageIndex++) {
    const page = await client.listSubMembers({ pageIndex, pageUnit: LIMITS.pageUnitMax });
    const hit = page.items.find((m) => m.memberSeq === memberSeq);
    if (hit) return toMemberView(hit);
    if (page.items.length < LIMITS.pageUnitMax) return null;
  }
  return null;
}

/** `biz|ts|clients` (any case) or a group seq (1000, 1001, 1014). */
export function parseGroup(input: string | number, endpoint = opsEndpoint('members')): MemberGroupSeq {
  const v = String(input).trim().toLowerCase();
  for (const seq of MEMBER_GROUP_SEQS) {
    if (v === String(seq) || v === MEMBER_GROUP[seq].name.toLowerCase()) return seq;
  }
  return invalid(
    endpoint,
    'group',
    `"${String(input).slice(0, 20)}" is not a group: use biz, ts or clients.`,
  );
}

/** Longest e-mail address (RFC 5321 path limit; the API's checkEmail enforces the same). */
export const EMAIL_MAX = 254;
/** Trimmed, then the API module's own e-mail rule, so this layer never accepts what it refuses. */
const emailSchema = z
  .string()
  .trim()
  .superRefine((v, ctx) => {
    const finding = v === '' ? 'The e-mail address is empty: use the form name@example.com.' : checkEmail(v);
    if (finding) ctx.addIssue({ code: 'custom', message: finding });
  });

export function parseEmail(input: string, endpoint = opsEndpoint('members.add')): string {
  const r = emailSchema.safeParse(input);
  if (!r.success) return invalid(endpoint, 'email', r.error.issues[0]?.message ?? 'Invalid e-mail address.');
  return r.data;
}

export interface AddedMember {
  memberSeq: number;
  email: string;
  /** Undefined when no group was given: the service's default applies. */
  groupSeq: MemberGroupSeq | undefined;
  groupLabel: string | undefined;
}

export async function addMember(
  client: ServiceClient,
  email: string,
  group?: string | number,
): Promise<AddedMember> {
  const endpoint = opsEndpoint('members.add');
  const addr = parseEmail(email, endpoint);
  const groupSeq = group === undefined || group === '' ? undefined : parseGroup(group, endpoint);
  const { memberSeq } = await client.createSubMember(addr, groupSeq);
  return { memberSeq, email: addr, groupSeq, groupLabel: groupSeq ? MEMBER_GROUP[groupSeq].name : undefined };
}

function requireSeq(endpoint: string, memberSeq: number): void {
  if (!Number.isSafeInteger(memberSeq) || memberSeq < 1) {
    invalid(endpoint, 'member', {
      before: `Member number ${memberSeq} is not valid: use the number shown by `,
      step: { do: 'members' },
      after: '.',
    });
  }
}

async function requireMember(
  endpoint: string,
  client: ServiceClient,
  memberSeq: number,
): Promise<MemberView> {
  requireSeq(endpoint, memberSeq);
  const m = await findMember(client, memberSeq);
  if (!m) {
    throw new RefusedError(endpoint, 'memberNotFound', 'member', {
      before: `There is no sub-member number ${memberSeq}: run `,
      step: { do: 'members' },
      after: ' to see them.',
    });
  }
  return m;
}

export async function resetPassword(
  client: ServiceClient,
  memberSeq: number,
): Promise<{ memberSeq: number }> {
  requireSeq(opsEndpoint('members.resetPassword'), memberSeq);
  await client.resetSubMemberPassword(memberSeq);
  return { memberSeq };
}

/**
 * Activates (MT001) or deactivates (MT002) a member. The member is read first: asking for the
 * state it is already in is refused with `alreadyInState` and nothing is sent.
 */
export async function setMemberActive(
  client: ServiceClient,
  memberSeq: number,
  active: boolean,
): Promise<{ before: MemberView; status: MemberStatusCode }> {
  const endpoint = opsEndpoint(active ? 'members.activate' : 'members.deactivate');
  const m = await requireMember(endpoint, client, memberSeq);
  const status: MemberStatusCode = active ? 'MT001' : 'MT002';
  if (m.status === status) {
    throw new RefusedError(
      endpoint,
      'alreadyInState',
      'member',
      `${m.email} is already ${MEMBER_STATUS[status].toLowerCase()}: nothing to change.`,
    );
  }
  await client.updateSubMember({ memberSeq, status });
  return { before: m, status };
}

/** Moves a member to another group; refused with `alreadyInState` when already in it. */
export async function changeGroup(
  client: ServiceClient,
  memberSeq: number,
  group: string | number,
): Promise<{ before: MemberView; groupSeq: MemberGroupSeq; groupLabel: string }> {
  const endpoint = opsEndpoint('members.changeGroup');
  const groupSeq = parseGroup(group, endpoint);
  const m = await requireMember(endpoint, client, memberSeq);
  const label = MEMBER_GROUP[groupSeq].name;
  if (m.groupSeq === groupSeq) {
    throw new RefusedError(
      endpoint,
      'alreadyInState',
      'group',
      `${m.email} is already in the ${label} group.`,
    );
  }
  await client.updateSubMember({ memberSeq, groupSeq });
  return { before: m, groupSeq, groupLabel: label };
}
