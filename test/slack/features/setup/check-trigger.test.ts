/**
 * "Check the service" is a button inside the setup modal that opens a view over it: the view is
 * pushed with the trigger id (3 s) before a slow admin check answers, and never left saying
 * "Checking…". Order is asserted on a shared log (never time): a deferred users.info stands for a
 * slow or rate-limited Slack.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../../../src/slack/features/index.js';
import { checkServiceButton } from '../../../../src/slack/features/setup/check.js';
import { encodeValue } from '../../../../src/slack/kit/blocks/values.js';
import { setRoleCheckBudgetMs } from '../../../../src/slack/kit/context/roles/admission.js';
import { registerInteractions } from '../../../../src/slack/kit/interactions/listeners.js';
import { WM_ACTIONS } from '../../../../src/slack/shared/wm/values.js';
import { captureApp, deferredUsersInfo, fakeClient, memoryDeps } from '../../../support/slack-app.js';

function click(user: string) {
  return {
    ack: async () => undefined,
    body: {
      type: 'block_actions',
      team: { id: 'T1' },
      user: { id: user },
      trigger_id: 'trig',
      view: { id: 'VSETUP', type: 'modal', callback_id: 'drm_setup' },
      actions: [{ action_id: WM_ACTIONS.setupCheck, value: encodeValue({ w: 'T1' }) }],
    },
    context: { teamId: 'T1' },
  };
}

describe('setup: Check the service (a button inside a modal)', () => {
  it('a slow admin check: the view is pushed over the setup modal before users.info answers', async () => {
    const deps = await memoryDeps();
    setRoleCheckBudgetMs(deps, 0);
    const cap = captureApp();
    registerInteractions(cap.app, deps, [checkServiceButton], registry);
    const log: string[] = [];
    const slow = deferredUsersInfo(log, { tz: 'UTC', is_admin: true });
    const views: Array<{ name: string; args: unknown }> = [];
    const client = fakeClient(log, slow.override);
    const record =
      (name: string, f: (a: never) => Promise<unknown>) =>
      async (args: unknown): Promise<unknown> => {
        views.push({ name, args });
        return f(args as never);
      };
    client.views = {
      open: record('views.open', client.views.open),
      push: record('views.push', client.views.push),
      update: record('views.update', client.views.update),
    };
    const done = cap.action(WM_ACTIONS.setupCheck)({ ...click('U0ADMIN'), client });
    await expect.poll(() => log.includes('views.push')).toBe(true);
    expect(log).not.toContain('users.info answered');
    slow.release();
    await done;
    expect(log).not.toContain('views.open');
    // users.info was asked first, but the view was pushed before it answered.
    expect(log.slice(0, 3)).toEqual(['users.info', 'views.push', 'users.info answered']);
    // The pushed view ends with an answer, not "Checking…" (the test deps have no probe API).
    const last = views.at(-1)!;
    expect(last.name).toBe('views.update');
    expect(last.args).toMatchObject({ view_id: 'V1' });
    expect(JSON.stringify(last.args)).not.toContain('Checking the service');
  });
});
