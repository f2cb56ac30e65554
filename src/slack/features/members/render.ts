/** `/drm members`: sub-members with status and group, per-member buttons, the group modal. */
import { MEMBER_GROUP, MEMBER_GROUP_SEQS } from '../../../api/codes.js';
import type { PageResult } from '../../../ops/service/common.js';
import type { AddedMember, MemberView } from '../../../ops/service/members.js';
import {
  actions,
  type Block,
  type ButtonElement,
  button,
  confirmDialog,
  context,
  fields,
  header,
  type Message,
  type ModalView,
  message,
  modal,
  section,
  staticSelect,
} from '../../kit/blocks/blocks.js';
import { code, esc } from '../../kit/blocks/mrkdwn.js';
import { pagingButtons, svcPaging } from '../../kit/blocks/paging.js';
import { memberStatus } from '../../kit/blocks/status.js';
import {
  type CardMeta,
  cardContext,
  encodeValue,
  plural,
  SVC_ACTIONS,
  SVC_VIEWS,
} from '../../shared/svc/values.js';

/** Members a page: 2 blocks each + header/summary/nav/context stay within 50 blocks. */
export const MEMBERS_PAGE_SIZE = 20;

export interface MembersMeta extends CardMeta {
  workspace: string;
  /** A bot-authored line on top ("Password reset sent to …"). */
  banner?: string;
  /**
   * The list is posted in the channel (`share`): members read it too, and every button on it is
   * admin-only, so it has none and names the command instead (the click would be refused anyway).
   */
  shared?: boolean;
}

function memberButtons(m: MemberView, workspace: string, page: number): ButtonElement[] {
  const value = encodeValue({ w: workspace, p: page, m: m.memberSeq });
  // Confirm dialogs are plain_text: the address as is (the builder neutralises it).
  const email = m.email;
  const list: ButtonElement[] = [
    button('Change group', SVC_ACTIONS.memberGroup, { value }),
    button('Reset password', SVC_ACTIONS.memberResetPassword, {
      value,
      confirm: confirmDialog(
        'Reset the password?',
        `The service e-mails ${email} a password reset. Their current password stops working.`,
        'Reset password',
        'Back',
      ),
    }),
  ];
  if (m.active) {
    list.push(
      button('Deactivate', SVC_ACTIONS.memberDeactivate, {
        value,
        style: 'danger',
        confirm: confirmDialog(
          'Deactivate this member?',
          `${email} can no longer sign in to the service console until someone activates them again.`,
          'Deactivate',
          'Back',
          'danger',
        ),
      }),
    );
  } else {
    list.push(
      button('Activate', SVC_ACTIONS.memberActivate, {
        value,
        style: 'primary',
        confirm: confirmDialog(
          'Activate this member?',
          `${email} can sign in to the service console again with the access of the ${m.groupLabel} group.`,
          'Activate',
          'Back',
          'primary',
        ),
      }),
    );
  }
  return list;
}

/** One page of sub-members: inactive ones first (they are the ones to act on), then by e-mail. */
export function membersMessage(page: PageResult<MemberView>, meta: MembersMeta): Message {
  const list = [...page.items].sort(
    (a, b) => Number(a.active) - Number(b.active) || a.email.localeCompare(b.email),
  );
  const inactive = list.filter((m) => !m.active).length;
  const blocks: Block[] = [];
  if (meta.banner) blocks.push(section(meta.banner));
  blocks.push(header('Sub-members'));
  blocks.push(
    section(
      list.length === 0
        ? page.page > 1
          ? 'No more members.'
          : 'No sub-members yet. Add one with `/drm members add <email> [biz|ts|clients]`.'
        : `Page ${page.page} · ${plural(list.length, 'member')}${inactive ? ` · ${inactive} inactive (listed first)` : ''}`,
    ),
  );
  for (const m of list.slice(0, MEMBERS_PAGE_SIZE)) {
    blocks.push(
      section(
        `${esc(m.email)} · ${memberStatus(m.status)} · ${esc(m.groupLabel)} · no. ${code(m.memberSeq)} · since ${esc(m.regDate)}`,
      ),
    );
    if (!meta.shared)
      blocks.push(actions(memberButtons(m, meta.workspace, page.page), `svc_member_${m.memberSeq}`));
  }
  if (list.length > MEMBERS_PAGE_SIZE)
    blocks.push(context(`…and ${list.length - MEMBERS_PAGE_SIZE} more on this page not shown.`));
  const v = (p: number) => encodeValue({ w: meta.workspace, p });
  const nav = pagingButtons(svcPaging(page, SVC_ACTIONS.membersPage, v)).buttons;
  if (nav.length && !meta.shared) blocks.push(actions(nav, 'svc_members_nav'));
  if (meta.shared) {
    blocks.push(
      context(
        'Admins reset passwords, activate and change groups from `/drm members` (run without `share`: the buttons are for admins).',
      ),
    );
  }
  blocks.push(
    context(
      cardContext({ ...meta, siteId: undefined }),
      'Groups: BIZ (billing and integration), TS (integration and SDK), Clients (usage history only).',
    ),
  );
  return message(`Sub-members, page ${page.page}: ${plural(list.length, 'member')}.`, blocks);
}

export function memberAddedMessage(a: AddedMember, meta: CardMeta): Message {
  return message(`Added the sub-member ${esc(a.email)}; the service e-mails them how to sign in.`, [
    section(`:white_check_mark: *Sub-member added:* ${esc(a.email)}`, {
      fields: fields([
        ['Member no.', code(a.memberSeq)],
        ['Group', a.groupLabel ? esc(a.groupLabel) : "The service's default"],
      ]),
    }),
    context(cardContext({ ...meta, siteId: undefined }), 'The service e-mails them how to sign in.'),
  ]);
}

export const GROUP_BLOCK = 'svc_member_group';

export function groupModal(m: MemberView, privateMetadata: string): ModalView {
  return modal(
    SVC_VIEWS.memberGroup,
    'Change group',
    [
      section(
        `Move ${esc(m.email)} (now in ${esc(m.groupLabel)}) to another group. Their console access changes at once.`,
      ),
      staticSelect(
        GROUP_BLOCK,
        'Group',
        MEMBER_GROUP_SEQS.map((seq) => ({
          text: `${MEMBER_GROUP[seq].name}: ${MEMBER_GROUP[seq].access}`,
          value: String(seq),
        })),
        { initial: String(m.groupSeq) },
      ),
    ],
    { submit: 'Change group', privateMetadata },
  );
}
