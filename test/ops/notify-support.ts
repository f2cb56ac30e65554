/** OpsDeps over a memory store with saved credentials (no service call is made by these ops). */
import { randomBytes } from 'node:crypto';
import type { ApiFactory } from '../../src/api/types.js';
import type { OpsDeps } from '../../src/ops/workspace.js';
import { createStore } from '../../src/store/index.js';

export const WS = 'T0NOTIFYOPS';

export async function notifyDeps(
  opts: { service?: boolean; now?: () => number } = {},
): Promise<OpsDeps & { close(): Promise<void> }> {
  const store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
  await store.credentials.put(WS, {
    credentials: {
      siteIds: ['AB12', 'CD34'],
      defaultSiteId: 'AB12',
      ...(opts.service === false
        ? {}
        : {
            service: {
              accountId: 'acme',
              accountSeq: '1',
              secretKey: 'not-used-secret-0000000000000000',
              baseUrl: 'http://127.0.0.1:9/svc',
            },
          }),
    },
    verifiedAt: '2026-11-22T00:00:00.000Z',
    savedBy: 'U0ADMIN',
  });
  return {
    config: { distribution: 'oauth', auditChannelId: undefined } as unknown as OpsDeps['config'],
    store,
    api: {} as ApiFactory,
    now: opts.now ?? (() => Date.UTC(2026, 10, 22, 8, 0, 0)),
    close: () => store.close(),
  };
}
