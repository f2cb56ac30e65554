// Recipient look-ups and edits through the real API client against the emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../dev/emulator/index.js';
import { type Api, createApi } from '../../src/api/index.js';
import type { WatermarkingClient } from '../../src/api/types.js';
import { editRecipient, findExisting, IN_USE_MESSAGE, resolveRecipient } from '../../src/ops/recipients.js';

let emu: EmulatorHandle;
let api: Api;
let wm: WatermarkingClient;
const SITE = 'FILM';

beforeAll(async () => {
  emu = await startEmulator();
  api = createApi({ retries: { max: 0 } });
  wm = api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
  await wm.registerRecipients(SITE, [
    { name: 'Ops-Partner-KR', description: 'Korea' },
    { name: 'ops-partner-jp' },
    { name: 'ops-edit-me' },
    { name: 'ops-busy' },
  ]);
});
afterAll(async () => {
  await api.close();
  await emu.close();
});

describe('recipients against the emulator', () => {
  it('findExisting: both strategies agree, case-insensitively', async () => {
    const want = ['OPS-PARTNER-KR', 'ops-partner-jp', 'ops-nobody'];
    const viaSearch = await findExisting(wm, SITE, want, { strategy: 'search' });
    const viaList = await findExisting(wm, SITE, want, { strategy: 'list' });
    expect([...viaSearch.keys()].sort()).toEqual(['ops-partner-jp', 'ops-partner-kr']);
    expect([...viaList.entries()].sort()).toEqual([...viaSearch.entries()].sort());
    expect(viaSearch.get('ops-partner-kr')?.name).toBe('Ops-Partner-KR');
  });

  it('resolveRecipient: name in another case, id, and suggestions', async () => {
    const byName = await resolveRecipient(wm, SITE, 'ops-partner-kr');
    expect(byName).toMatchObject({ ok: true, exactCase: false, recipient: { name: 'Ops-Partner-KR' } });
    if (!byName.ok) return;
    const byId = await resolveRecipient(wm, SITE, String(byName.recipient.dwmId));
    expect(byId).toMatchObject({ ok: true, matchedBy: 'id', recipient: { name: 'Ops-Partner-KR' } });
    const missing = await resolveRecipient(wm, SITE, 'ops-partner-kx');
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.suggestions.map((s) => s.name)).toContain('Ops-Partner-KR');
    expect(await resolveRecipient(wm, SITE, '99999999')).toMatchObject({ ok: false, reason: 'not-found' });
  });

  it('editRecipient: success, duplicate, in use', async () => {
    const me = await resolveRecipient(wm, SITE, 'ops-edit-me');
    if (!me.ok) throw new Error(me.message);
    const ok = await editRecipient(wm, SITE, me.recipient.dwmId, { description: 'edited' });
    expect(ok.ok).toBe(true);
    expect((await wm.getRecipient(SITE, me.recipient.dwmId)).description).toBe('edited');
    const dup = await editRecipient(wm, SITE, me.recipient.dwmId, { name: 'OPS-PARTNER-JP' });
    expect(dup).toMatchObject({ ok: false, reason: 'duplicate' });

    const busy = await resolveRecipient(wm, SITE, 'ops-busy');
    if (!busy.ok) throw new Error(busy.message);
    emu.createJob(SITE, 'ops-busy-content', [{ recipient: busy.recipient.dwmId }]);
    expect(await editRecipient(wm, SITE, busy.recipient.dwmId, { name: 'ops-busy-2' })).toEqual({
      ok: false,
      reason: 'in-use',
      message: IN_USE_MESSAGE,
    });
  });
});
