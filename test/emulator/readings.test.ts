/**
 * The points the specs leave open ("not shown"), each reading played by the emulator, and the bot
 * under each: endpoint 8's "no request yet", where POST/PUT parameters go. Loopback only.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorBehaviours, startEmulator } from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { DEFAULT_ERROR_CODES, loadErrorCodes, setErrorCodes } from '../../src/api/error-codes.js';
import { ServiceError } from '../../src/api/errors.js';
import { type Api, type ApiCodeIn, type BodyEncoding, createApi } from '../../src/api/index.js';
import type { ServiceClient } from '../../src/api/types.js';
import { RefusedError } from '../../src/ops/service/common.js';
import { cancelRequest, getPlanState, requestChange } from '../../src/ops/service/plan.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
let emu: EmulatorHandle;
const apis: Api[] = [];

// A fresh emulator per test: a request made under one reading is not the next one's "none".
beforeEach(async () => {
  emu = await startEmulator({ now: () => T0 });
});
afterEach(async () => {
  setErrorCodes(loadErrorCodes('{}'));
  for (const a of apis.splice(0)) await a.close();
  await emu.close();
});

function client(o: { bodyEncoding?: BodyEncoding; apiCodeIn?: ApiCodeIn } = {}): ServiceClient {
  const api = createApi({ retries: { max: 0 }, jwtTtlSeconds: 0, clock: () => T0, ...o });
  apis.push(api);
  return api.service({ ...emu.demo.service, baseUrl: emu.serviceBaseUrl });
}

describe('endpoint 8: "no request yet" in every reading', () => {
  // AB12 has no DRM (PD001) plan request in the seed; DEMO's DRM has a decided one.
  const NONE: Array<[string, EmulatorBehaviours]> = [
    ['data null', { planNone: 'null' }],
    ['an empty list', { planNone: 'empty' }],
    ['a not-found refusal with the agreed code', { planNone: 'notFound' }],
  ];
  for (const [label, b] of NONE) {
    it(`${label}: read as none, and the first request of the product is sent`, async () => {
      emu.setBehaviours(b);
      const svc = client();
      const state = await getPlanState(svc, 'AB12', 'drm');
      expect(state.latest).toBeNull();
      expect(state.unreadLatest).toBeUndefined();
      expect(state.actions.find((x) => x.action === 'trial')?.allowed).toBe(true);
      const made = await requestChange(svc, 'AB12', 'drm', 'trial', 'two more weeks');
      expect(made.earlierUnread).toBeUndefined();
      expect(made.pending).toBe(true);
      // The request is there now, and a second one is refused by the pre-read (pending).
      expect((await getPlanState(svc, 'AB12', 'drm')).latest?.requestId).toBe(made.requestId);
      await expect(requestChange(svc, 'AB12', 'drm', 'resume')).rejects.toBeInstanceOf(RefusedError);
      await cancelRequest(svc, 'AB12', 'drm', made.requestId);
    });
  }

  it('a not-found refusal with a code the table does not know: the card says why, the request is still sent', async () => {
    emu.setBehaviours({ planNone: 'notFound', planNoneCode: 'NF-404' });
    const svc = client();
    const state = await getPlanState(svc, 'AB12', 'drm');
    expect(state.latest).toBeNull();
    expect(state.unreadLatest).toEqual({ code: 'NF-404', message: 'No request found for AB12 PD001.' });
    expect(state.actions.find((x) => x.action === 'trial')?.allowed).toBe(true);
    expect(state.actions.find((x) => x.action === 'cancel')?.allowed).toBe(false);
    const made = await requestChange(svc, 'AB12', 'drm', 'trial');
    expect(made.earlierUnread).toEqual({ code: 'NF-404', message: 'No request found for AB12 PD001.' });
    expect(made.pending).toBe(true);
    // The cancel from the card (request id known) goes out although nothing could be read first.
    await cancelRequest(svc, 'AB12', 'drm', made.requestId);
    // Without an id there is nothing to cancel by: said, nothing sent.
    await expect(cancelRequest(svc, 'FILM', 'fwm')).rejects.toThrow(/could not be read \(NF-404/);
  });

  it('the same code named in SERVICE_ERROR_CODES (requestNotFound) reads as none', async () => {
    emu.setBehaviours({ planNone: 'notFound', planNoneCode: 'NF-404' });
    setErrorCodes(loadErrorCodes('{"requestNotFound":"NF-404"}'));
    const state = await getPlanState(client(), 'AB12', 'drm');
    expect(state.latest).toBeNull();
    expect(state.unreadLatest).toBeUndefined();
  });

  it("another refusal (the site is not the account's) is still an error", async () => {
    emu.setBehaviours({ planNone: 'notFound' });
    const err = await client()
      .getLatestStatusRequest('ZZ99', 'PD001')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe(DEFAULT_ERROR_CODES.siteNotFound);
  });
});

describe('where POST/PUT parameters go', () => {
  const upload = {
    ask: 'ask-value',
    keyPw: 'pw',
    fpsCert: { filename: 'fps.der', data: new Uint8Array([1, 2]) },
    privateKey: { filename: 'key.pem', data: new Uint8Array([3]) },
  };
  /** Every Service API write (endpoints 2, 5, 6, 7, 9, 10, 17, 18). */
  async function everyWrite(svc: ServiceClient): Promise<void> {
    await svc.requestAdditionalSite('Placement Site');
    const { memberSeq } = await svc.createSubMember(`p${Math.random().toString(36).slice(2)}@example.com`);
    await svc.resetSubMemberPassword(memberSeq);
    await svc.updateSubMember({ memberSeq, status: 'MT002' });
    const r = await svc.registerStatusRequest('AB12', { serviceCode: 'PD001', requestType: 'SM003' });
    await svc.cancelStatusRequest('AB12', { serviceCode: 'PD001', requestId: r.requestId });
    await svc.updateSettings('AB12', { tokenDuration: 600 });
    await svc.uploadFpsCert('AB12', upload);
  }

  const READINGS: Array<
    [EmulatorBehaviours['writeParamsIn'], { bodyEncoding?: BodyEncoding; apiCodeIn?: ApiCodeIn }]
  > = [
    ['query', { bodyEncoding: 'query' }],
    ['json', { bodyEncoding: 'json', apiCodeIn: 'body' }],
    ['form', { bodyEncoding: 'form', apiCodeIn: 'body' }],
  ];
  for (const [where, settings] of READINGS) {
    it(`a service that reads them only from the ${where}: every write works with ${JSON.stringify(settings)}`, async () => {
      emu.setBehaviours({ writeParamsIn: where });
      await everyWrite(client(settings));
    });
    it(`a service that reads them only from the ${where}: the default placement is refused (the reading matters)`, async () => {
      emu.setBehaviours({ writeParamsIn: where });
      await expect(client().requestAdditionalSite('Placement Site')).rejects.toBeInstanceOf(ServiceError);
    });
  }

  it('api_code in both places works with every reading of the body', async () => {
    for (const where of ['json', 'form'] as const) {
      emu.setBehaviours({ writeParamsIn: where });
      await everyWrite(client({ bodyEncoding: where, apiCodeIn: 'both' }));
    }
  });
});
