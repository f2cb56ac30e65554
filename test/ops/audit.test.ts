import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiFactory } from '../../src/api/types.js';
import { audit, recentAudit } from '../../src/ops/audit.js';
import { createStore } from '../../src/store/index.js';

describe('audit', () => {
  it('appends, mirrors to the workspace channel (over the env one), survives mirror failures', async () => {
    const store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
    const warnings: string[] = [];
    const deps = {
      config: { distribution: 'oauth' as const, auditChannelId: 'CENV' },
      store,
      api: {} as ApiFactory,
      now: () => 0,
      logger: { warn: (_o: object, m: string) => warnings.push(m) },
    };
    const posted: string[] = [];
    await audit(deps, 'T1', { userId: 'U1', action: 'a.one', detail: 'd1', result: 'ok' }, async (ch, e) => {
      posted.push(`${ch}:${e.action}`);
    });
    await store.settings.put('T1', { adminUserIds: [], auditChannelId: 'CWS' });
    await audit(
      deps,
      'T1',
      { userId: 'U1', action: 'a.two', detail: 'd2', result: 'refused' },
      async (ch, e) => {
        posted.push(`${ch}:${e.action}`);
      },
    );
    await audit(deps, 'T1', { userId: 'U1', action: 'a.three', detail: 'd3', result: 'error' }, async () => {
      throw new Error('not_in_channel');
    });
    expect(posted).toEqual(['CENV:a.one', 'CWS:a.two']);
    expect(warnings).toHaveLength(1);
    const list = await recentAudit(deps, 'T1', 2);
    expect(list.map((e) => e.action)).toEqual(['a.three', 'a.two']);
    expect(await recentAudit(deps, 'T2')).toEqual([]);
    await store.close();
  });
});
