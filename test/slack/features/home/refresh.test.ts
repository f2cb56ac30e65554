/**
 * Which Slack requests refresh the Home tab: the features declare it (`changesHome` on command
 * entries and interactions); the kit's rule reads those declarations (pure).
 */
import { describe, expect, it } from 'vitest';
import { FEATURES, registry } from '../../../../src/slack/features/index.js';
import { changesHome, interactionsOf } from '../../../../src/slack/kit/features.js';

const all = interactionsOf(FEATURES);
const changes = (body: Parameters<typeof changesHome>[0]) => changesHome(body, registry, all);

describe('changesHome', () => {
  it('watch/unwatch/setup commands, the setup and watch modals, plan and subscription buttons', () => {
    expect(changes({ command: '/dwm', text: 'watch site:AB12' })).toBe(true);
    expect(changes({ command: '/dwm', text: '  UNWATCH' })).toBe(true);
    expect(changes({ command: '/dwm', text: 'setup' })).toBe(true);
    expect(changes({ command: '/dwm', text: 'setup status' })).toBe(false);
    expect(changes({ command: '/dwm', text: 'jobs status:error' })).toBe(false);
    expect(changes({ command: '/drm', text: 'watch' })).toBe(false);
    expect(changes({ type: 'view_submission', view: { callback_id: 'drm_setup' } })).toBe(true);
    expect(changes({ type: 'view_submission', view: { callback_id: 'watch_subscribe' } })).toBe(true);
    expect(changes({ type: 'view_submission', view: { callback_id: 'svc_plan_request' } })).toBe(true);
    expect(changes({ type: 'view_submission', view: { callback_id: 'wm_register_form' } })).toBe(false);
    expect(changes({ type: 'block_actions', actions: [{ action_id: 'svc_plan_request_trial' }] })).toBe(true);
    expect(changes({ type: 'block_actions', actions: [{ action_id: 'svc_plan_cancel' }] })).toBe(true);
    expect(changes({ type: 'block_actions', actions: [{ action_id: 'watch-job-details' }] })).toBe(false);
    expect(changes({ type: 'event_callback' })).toBe(false);
    // The direct forms of plan requests change the latest request the tab shows; reading does not.
    expect(changes({ command: '/drm', text: 'plan trial drm two more weeks' })).toBe(true);
    expect(changes({ command: '/drm', text: 'PLAN Cancel fwm' })).toBe(true);
    expect(changes({ command: '/drm', text: 'plan fwm' })).toBe(false);
    expect(changes({ command: '/drm', text: 'plan' })).toBe(false);
    expect(changes({ command: '/dwm', text: 'plan trial' })).toBe(false);
  });
});
