import { describe, expect, it } from 'vitest';
import { ServiceError, ValidationError } from '../../../src/api/errors.js';
import { parseServiceCode, RefusedError } from '../../../src/ops/service/common.js';
import {
  allowedActions,
  cancelRequest,
  getPlanState,
  PLAN_ACTIONS,
  parsePlanAction,
  requestChange,
} from '../../../src/ops/service/plan.js';
import { FakeServiceClient } from '../../support/fake-service.js';

function action(state: Awaited<ReturnType<typeof getPlanState>>, a: string) {
  return state.actions.find((x) => x.action === a)!;
}

describe('parsing', () => {
  it('accepts drm|fwm|PD001|PD002 in any case and refuses others', () => {
    expect(parseServiceCode('drm')).toBe('PD001');
    expect(parseServiceCode('FWM')).toBe('PD002');
    expect(parseServiceCode('pd001')).toBe('PD001');
    expect(parseServiceCode('PD002')).toBe('PD002');
    expect(() => parseServiceCode('PD003')).toThrow(/use drm or fwm/);
  });
  it('accepts action names and SM codes', () => {
    expect(parsePlanAction('Trial')).toBe('trial');
    expect(parsePlanAction('SM002')).toBe('suspend');
    expect(parsePlanAction('sm004')).toBe('cancel');
    expect(() => parsePlanAction('pause')).toThrow(ValidationError);
  });
  it('exposes roles as data: suspension and cancel need an admin', () => {
    expect(PLAN_ACTIONS.suspend.role).toBe('admin');
    expect(PLAN_ACTIONS.cancel.role).toBe('admin');
    expect(PLAN_ACTIONS.trial.role).toBe('member');
    expect(PLAN_ACTIONS.resume.requestType).toBe('SM001');
  });
});

describe('getPlanState', () => {
  it('no request: trial/resume/suspend allowed, cancel refused with a reason', async () => {
    const c = new FakeServiceClient();
    const s = await getPlanState(c, 'AB12', 'drm');
    expect(s.latest).toBeNull();
    expect(s.serviceLabel).toBe('DRM');
    expect(action(s, 'trial').allowed).toBe(true);
    expect(action(s, 'cancel')).toMatchObject({ allowed: false });
    expect(action(s, 'cancel').reason).toMatch(/only while the request is pending/);
  });

  it('pending request: only cancel is allowed', async () => {
    const c = new FakeServiceClient();
    c.addRequest('AB12', 'PD001', {
      requestId: 'RG1',
      type: 'SM001',
      registeredBy: 'alice',
      message: 'please',
    });
    const s = await getPlanState(c, 'AB12', 'PD001');
    expect(s.latest).toMatchObject({
      requestId: 'RG1',
      typeLabel: 'Service resume',
      statusLabel: 'Pending',
      pending: true,
      registeredBy: 'alice',
      message: 'please',
    });
    expect(action(s, 'cancel').allowed).toBe(true);
    for (const a of ['trial', 'resume', 'suspend']) {
      expect(action(s, a).allowed).toBe(false);
      expect(action(s, a).reason).toMatch(/RG1\) is already pending/);
    }
  });

  it('approved request: cancel refused, reason names the status', async () => {
    const c = new FakeServiceClient();
    c.addRequest('AB12', 'PD001', { requestId: 'RG1', status: 'ST003' });
    const s = await getPlanState(c, 'AB12', 'drm');
    expect(action(s, 'cancel').allowed).toBe(false);
    expect(action(s, 'cancel').reason).toMatch(/latest request is approved/);
  });

  it('product status refines resume/suspend', () => {
    const inService = allowedActions(null, { productStatus: 'SE000' });
    expect(inService.find((a) => a.action === 'resume')?.allowed).toBe(false);
    expect(inService.find((a) => a.action === 'suspend')?.allowed).toBe(true);
    const suspended = allowedActions(null, { productStatus: 'SE001' });
    expect(suspended.find((a) => a.action === 'resume')?.allowed).toBe(true);
    expect(suspended.find((a) => a.action === 'suspend')?.allowed).toBe(false);
  });

  it('refuses a bad site id or service before calling', async () => {
    const c = new FakeServiceClient();
    await expect(getPlanState(c, 'AB1', 'drm')).rejects.toThrow(/4 letters or digits/);
    await expect(getPlanState(c, 'AB12', 'xyz')).rejects.toThrow(/not a product/);
    expect(c.calls).toHaveLength(0);
  });
});

describe('requestChange', () => {
  it('registers SM003 for trial and returns a pending view', async () => {
    const c = new FakeServiceClient();
    const r = await requestChange(c, 'AB12', 'fwm', 'trial', '  two more weeks ');
    expect(r).toMatchObject({
      type: 'SM003',
      pending: true,
      statusLabel: 'Pending',
      message: 'two more weeks',
    });
    expect(c.callsOf('registerStatusRequest')[0]?.args).toEqual([
      'AB12',
      { serviceCode: 'PD002', requestType: 'SM003', message: 'two more weeks' },
    ]);
  });

  it('refuses when a request is already pending, without calling register', async () => {
    const c = new FakeServiceClient();
    c.addRequest('AB12', 'PD001', { requestId: 'RG7', type: 'SM002' });
    const err = await requestChange(c, 'AB12', 'drm', 'resume').catch((e) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect(err.reason).toBe('alreadyPending');
    expect(err.message).toMatch(/service suspension request \(RG7\) is already pending/);
    expect(c.callsOf('registerStatusRequest')).toHaveLength(0);
  });

  it('allows a new request once the previous one is approved or cancelled', async () => {
    const c = new FakeServiceClient();
    c.addRequest('AB12', 'PD001', { requestId: 'RG7', status: 'ST002' });
    await expect(requestChange(c, 'AB12', 'drm', 'SM002')).resolves.toMatchObject({ type: 'SM002' });
  });

  it('refuses cancel as a new request and an over-long message', async () => {
    const c = new FakeServiceClient();
    await expect(requestChange(c, 'AB12', 'drm', 'cancel')).rejects.toThrow(/not a new request/);
    await expect(requestChange(c, 'AB12', 'drm', 'trial', 'x'.repeat(501))).rejects.toThrow(
      /at most 500 \(its own limit: the service documents none\)/,
    );
    expect(c.calls).toHaveLength(0);
  });

  it('passes the service refusal through when it races (E4003)', async () => {
    const c = new FakeServiceClient();
    c.getLatestStatusRequest = async () => null; // stale read: someone registered in between
    c.addRequest('AB12', 'PD001', { requestId: 'RG9' });
    const err = await requestChange(c, 'AB12', 'drm', 'trial').catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe('E4003');
  });
});

describe('cancelRequest', () => {
  it('cancels the pending request when the id matches', async () => {
    const c = new FakeServiceClient();
    c.addRequest('AB12', 'PD001', { requestId: 'RG1', type: 'SM003' });
    const r = await cancelRequest(c, 'AB12', 'drm', 'RG1');
    expect(r).toMatchObject({
      requestId: 'RG1',
      type: 'SM003',
      status: 'ST002',
      statusLabel: 'Cancelled',
      pending: false,
    });
    expect(c.callsOf('cancelStatusRequest')[0]?.args).toEqual([
      'AB12',
      { serviceCode: 'PD001', requestId: 'RG1' },
    ]);
  });

  it('without an id cancels the latest pending request', async () => {
    const c = new FakeServiceClient();
    c.addRequest('AB12', 'PD002', { requestId: 'RG5' });
    await expect(cancelRequest(c, 'AB12', 'fwm')).resolves.toMatchObject({
      requestId: 'RG5',
      status: 'ST002',
    });
  });

  it('refuses when the latest is not pending (cancel only while ST001)', async () => {
    const c = new FakeServiceClient();
    c.addRequest('AB12', 'PD001', { requestId: 'RG1', status: 'ST003' });
    const err = await cancelRequest(c, 'AB12', 'drm', 'RG1').catch((e) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect(err.reason).toBe('notPending');
    expect(err.message).toMatch(/only while the request is pending; request RG1 is approved/);
    expect(c.callsOf('cancelStatusRequest')).toHaveLength(0);
  });

  it('refuses when the id is no longer the latest request (never cancels another one)', async () => {
    const c = new FakeServiceClient();
    c.addRequest('AB12', 'PD001', { requestId: 'RG1', status: 'ST002' });
    c.addRequest('AB12', 'PD001', { requestId: 'RG2' });
    const err = await cancelRequest(c, 'AB12', 'drm', 'RG1').catch((e) => e);
    expect(err.reason).toBe('requestChanged');
    expect(err.message).toMatch(/RG1 is no longer the latest one \(now RG2/);
    expect(c.callsOf('cancelStatusRequest')).toHaveLength(0);
  });

  it('refuses when there is no request, and an empty id', async () => {
    const c = new FakeServiceClient();
    const err = await cancelRequest(c, 'AB12', 'drm').catch((e) => e);
    expect(err.reason).toBe('noRequest');
    await expect(cancelRequest(c, 'AB12', 'drm', '  ')).rejects.toThrow(/request id is empty/);
  });
});
