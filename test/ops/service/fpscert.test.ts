import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import { FPS_FILE_MAX_BYTES, FPS_KEY_MAX_BYTES, registerFpsCert } from '../../../src/ops/service/fpscert.js';
import { FakeServiceClient } from '../../support/fake-service.js';

const ask = 'd4b1c2e3f4a5b6c7d8e9f0a1b2c3d4e5';
const keyPw = 'pa55-word';
function input(over: Record<string, unknown> = {}) {
  return {
    ask,
    keyPw,
    fpsCert: { filename: 'fairplay.cer', data: new Uint8Array([1, 2, 3]) },
    privateKey: { filename: 'C:\\keys\\privatekey.PEM', data: new Uint8Array([4, 5]) },
    ...over,
  };
}

describe('registerFpsCert', () => {
  it('uploads and returns what was registered without secrets', async () => {
    const c = new FakeServiceClient();
    const r = await registerFpsCert(c, 'AB12', input());
    expect(r).toEqual({
      siteId: 'AB12',
      certificate: { filename: 'fairplay.cer', bytes: 3 },
      privateKey: { filename: 'privatekey.PEM', bytes: 2 },
    });
    expect(JSON.stringify(r)).not.toContain(ask);
    expect(JSON.stringify(r)).not.toContain(keyPw);
    expect(c.uploads[0]?.upload).toMatchObject({ ask, keyPw, fpsCert: { filename: 'fairplay.cer' } });
    await registerFpsCert(c, 'AB12', input({ fpsCert: { filename: 'x.DER', data: new Uint8Array([1]) } }));
    expect(c.uploads).toHaveLength(2);
  });

  it('refuses bad uploads before calling, naming every problem and no secret', async () => {
    const c = new FakeServiceClient();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ask: ' ' }, /ASK\) is empty/],
      [{ keyPw: '' }, /key password is empty/],
      [{ keyPw: 'é'.repeat(17) }, /34 bytes; the limit is 32/],
      [{ fpsCert: { filename: 'cert.pem', data: new Uint8Array([1]) } }, /\.der or \.cer file/],
      [{ privateKey: { filename: 'key.txt', data: new Uint8Array([1]) } }, /\.pem file/],
      [{ fpsCert: { filename: 'cert.der', data: new Uint8Array() } }, /is empty/],
      [{ fpsCert: { filename: 'c.der', data: new Uint8Array(FPS_FILE_MAX_BYTES + 1) } }, /limit is 1048576/],
      [{ privateKey: { filename: 'k.pem', data: new Uint8Array(FPS_KEY_MAX_BYTES + 1) } }, /limit is 32768/],
      [{ fpsCert: undefined }, /certificate file is missing/],
    ];
    for (const [over, msg] of cases) {
      const err = await registerFpsCert(c, 'AB12', input(over) as never).catch((e) => e);
      expect(err, String(msg)).toBeInstanceOf(ValidationError);
      expect(err.message).toMatch(msg);
      expect(err.message).not.toContain(ask);
    }
    expect(c.uploads).toHaveLength(0);
    const all = await registerFpsCert(c, 'AB12', {
      ask: '',
      keyPw: '',
      fpsCert: { filename: 'a', data: new Uint8Array() },
      privateKey: { filename: 'b', data: new Uint8Array() },
    }).catch((e) => e);
    expect(all.issues).toHaveLength(4);
  });
});
