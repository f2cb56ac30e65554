/**
 * Which conversations.info readings count as "shared with another organisation" (Slack Connect),
 * the rule behind refusing watches, digests, alerts and `share` there.
 */
import { describe, expect, it } from 'vitest';
import { isExternallyShared } from '../../../../../src/slack/kit/context/channels/access.js';

const own = ['T0OWN', 'E0ORG'];

describe('isExternallyShared', () => {
  it.each([
    [
      'Slack Connect (is_ext_shared)',
      { is_ext_shared: true, is_shared: true, shared_team_ids: ['T0OWN', 'T0X'] },
    ],
    ['an invitation pending (is_pending_ext_shared)', { is_pending_ext_shared: true }],
    ['an invitation pending (pending_shared)', { pending_shared: ['T0X'] }],
    ['an invitation pending (pending_connected_team_ids)', { pending_connected_team_ids: ['T0X'] }],
  ])('%s: shared', (_, ch) => {
    expect(isExternallyShared(ch, own)).toBe(true);
  });

  it('a workspace outside any Enterprise organisation: a channel shared with another team is shared', () => {
    expect(isExternallyShared({ is_shared: true, shared_team_ids: ['T0OWN', 'T0X'] }, ['T0OWN'])).toBe(true);
  });

  it('inside an Enterprise organisation (an org install too): a sibling workspace is not another organisation', () => {
    const sibling = { is_shared: true, shared_team_ids: ['T0OWN', 'T0SIB'] };
    expect(isExternallyShared(sibling, own)).toBe(false);
    expect(isExternallyShared(sibling, ['E0ORG'])).toBe(false);
    // Slack Connect from inside the organisation still is.
    expect(isExternallyShared({ ...sibling, is_ext_shared: true }, ['E0ORG'])).toBe(true);
  });

  it.each([
    ['not shared', { is_shared: false, shared_team_ids: ['T0OWN'] }],
    [
      'org-wide (same Enterprise organisation)',
      { is_shared: true, is_org_shared: true, shared_team_ids: ['T0OWN', 'T0SIB'] },
    ],
    ['shared only with its own team ids', { is_shared: true, shared_team_ids: ['T0OWN', 'E0ORG'] }],
    ['a direct message', { is_im: true }],
    ['empty pending lists', { pending_shared: [], pending_connected_team_ids: [] }],
  ])('%s: not shared', (_, ch) => {
    expect(isExternallyShared(ch, own)).toBe(false);
  });
});
