import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/api/errors.js';
import {
  attachRequestCard,
  listTrackedRequests,
  trackPlanRequest,
  trackSiteRequest,
} from '../../src/ops/request-outcomes.js';
import { notifyDeps, WS } from './notify-support.js';

type Deps = Awaited<ReturnType<typeof notifyDeps>>;
let deps: Deps | undefined;
afterEach(async () => {
  await deps?.close();
  deps = undefined;
});

describe('request tracking', () => {
  it('tracks a plan request with its requester; the card is attached later', async () => {
    deps = await notifyDeps();
    const { trackingId } = await trackPlanRequest(deps, WS, {
      siteId: 'AB12',
      serviceCode: 'drm',
      request: { requestId: 'RG1', type: 'SM003' },
      requestedBy: 'U0REQ',
    });
    expect(trackingId).toBe('plan:AB12:PD001:RG1');
    expect(
      await attachRequestCard(deps, WS, trackingId, { channel: 'C0CARD', ts: '1763800000.000100' }),
    ).toBe(true);
    const [t] = await listTrackedRequests(deps, WS, { userId: 'U0REQ' });
    expect(t).toMatchObject({
      kind: 'plan',
      serviceCode: 'PD001',
      requestLabel: 'Trial extension',
      card: { channel: 'C0CARD' },
    });
    expect(await listTrackedRequests(deps, WS, { userId: 'U0OTHER' })).toEqual([]);
  });

  it('a card for a request no longer tracked is not attached', async () => {
    deps = await notifyDeps();
    expect(
      await attachRequestCard(deps, WS, 'plan:AB12:PD001:RG404', {
        channel: 'C0CARD',
        ts: '1763800000.000100',
      }),
    ).toBe(false);
  });

  it('refuses a requester or card that are not Slack ids, and a bad request number', async () => {
    deps = await notifyDeps();
    const d = deps;
    await expect(
      trackPlanRequest(d, WS, {
        siteId: 'AB12',
        serviceCode: 'fwm',
        request: { requestId: 'RG1', type: 'SM001' },
        requestedBy: 'bob',
      }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      trackSiteRequest(d, WS, {
        seq: 3,
        name: 'Kids',
        requestedBy: 'U0REQ',
        card: { channel: 'general', ts: 'x' },
      }),
    ).rejects.toThrow(/card/);
    await expect(trackSiteRequest(d, WS, { seq: 0, name: 'Kids', requestedBy: 'U0REQ' })).rejects.toThrow(
      /request number/,
    );
  });
});
