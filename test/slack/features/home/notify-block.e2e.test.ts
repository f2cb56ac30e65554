/**
 * App Home's notifications block end to end: the viewer's pending request appears after they ask
 * through the bot and goes once the provider decided (the runtime refreshes the tab).
 */
import { afterEach, expect, it } from 'vitest';
import type { FakeCall } from '../../../../dev/fakeslack/index.js';
import { listTrackedRequests } from '../../../../src/ops/request-outcomes.js';
import type { TestBot } from '../../../harness/index.js';
import { json, type NotifySetup, setupNotify, tick } from '../../../support/notify.js';
import { lastSeq } from '../../../support/slack.js';

let s: NotifySetup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function openHome(b: TestBot, user: string): Promise<string> {
  const seq = lastSeq(b);
  await b.event({ type: 'app_home_opened', user, channel: 'D0HOME', tab: 'home' });
  const call = await b.fake.waitFor(
    (c: FakeCall) =>
      c.method === 'views.publish' &&
      c.seq > seq &&
      c.args.user_id === user &&
      !json(c.args).includes('Loading'),
    8000,
  );
  return json(call.args.view);
}

it('shows the viewer their pending request, and drops it once decided', async () => {
  s = await setupNotify();
  const b = s.bot;
  expect(await openHome(b, b.ws.member)).toContain('Nothing pending');

  const seq = lastSeq(b);
  await b.command('plan trial drm', { command: '/drm', user: b.ws.member });
  await b.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok, 8000);
  let tracked = await listTrackedRequests(b.deps, s.ws);
  for (let i = 0; i < 400 && !tracked[0]?.card; i++) {
    await new Promise((r) => setTimeout(r, 10));
    tracked = await listTrackedRequests(b.deps, s.ws);
  }
  const t = tracked[0]!;
  const home = await openHome(b, b.ws.member);
  expect(home).toContain('Your notifications');
  expect(home).toContain('Waiting for the provider');
  expect(home).toContain(t.requestId);
  expect(home).toContain(`card in <#${b.ws.channel}>`);
  // Another member's notifications block does not list it (the shared "Latest plan request" may).
  expect(await openHome(b, b.ws.admin)).not.toContain('Waiting for the provider');

  b.emulator!.approveRequest('DEMO', t.requestId);
  const before = lastSeq(b);
  await tick(s);
  const refreshed = b.fake
    .calls('views.publish')
    .filter((c) => c.seq > before && c.args.user_id === b.ws.member)
    .at(-1);
  expect(refreshed).toBeDefined();
  expect(json(refreshed!.args.view)).not.toContain('Waiting for the provider');
  expect(json(refreshed!.args.view)).toContain('Nothing pending');
});
