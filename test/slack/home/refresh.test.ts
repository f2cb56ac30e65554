/** Which Slack requests refresh the Home tab (pure rule of the refresh middleware). */
import { describe, expect, it } from 'vitest';
import { changesHome } from '../../../src/slack/features/home/refresh.js';

describe('changesHome', () => {
  it('watch/unwatch/setup commands, the setup and watch modals, plan and subscription buttons', () => {
    expect(changesHome({ command: '/dwm', text: 'watch site:AB12' })).toBe(true);
    expect(changesHome({ command: '/dwm', text: '  UNWATCH' })).toBe(true);
    expect(changesHome({ command: '/dwm', text: 'jobs status:error' })).toBe(false);
    expect(changesHome({ command: '/drm', text: 'watch' })).toBe(false);
    expect(changesHome({ type: 'view_submission', view: { callback_id: 'drm_setup' } })).toBe(true);
    expect(changesHome({ type: 'view_submission', view: { callback_id: 'watch_subscribe' } })).toBe(true);
    expect(changesHome({ type: 'view_submission', view: { callback_id: 'wm_register_form' } })).toBe(false);
    expect(changesHome({ type: 'block_actions', actions: [{ action_id: 'svc_plan_request' }] })).toBe(true);
    expect(changesHome({ type: 'block_actions', actions: [{ action_id: 'watch-job-details' }] })).toBe(false);
    expect(changesHome({ type: 'event_callback' })).toBe(false);
    // The direct forms of plan requests change the latest request the tab shows; reading does not.
    expect(changesHome({ command: '/drm', text: 'plan trial drm two more weeks' })).toBe(true);
    expect(changesHome({ command: '/drm', text: 'PLAN Cancel fwm' })).toBe(true);
    expect(changesHome({ command: '/drm', text: 'plan fwm' })).toBe(false);
    expect(changesHome({ command: '/drm', text: 'plan' })).toBe(false);
    expect(changesHome({ command: '/dwm', text: 'plan trial' })).toBe(false);
  });
});
