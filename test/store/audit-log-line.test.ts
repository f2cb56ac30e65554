/**
 * Every audit entry is also a structured log line with the fixed key `audit`, so a security
 * team's log pipeline collects the trail whatever happens to the store (and beyond AUDIT_CAP).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger, logger, setLogger } from '../../src/log.js';
import { createStore } from '../../src/store/index.js';

const KEY = randomBytes(32).toString('base64');
const previous = logger;
const dir = mkdtempSync(join(tmpdir(), 'drm-audit-log-'));
afterEach(() => setLogger(previous));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(level: string): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  setLogger(createLogger({ level, destination }));
  return lines;
}

const entry = {
  userId: 'U1',
  action: 'watch.add',
  detail: 'site SIT1',
  result: 'ok' as const,
  siteId: 'SIT1',
};

describe('audit log line', () => {
  it('each appended entry is logged under the key "audit" with its workspace, id and time', async () => {
    const lines = capture('info');
    const store = await createStore({ url: 'memory://', encryptionKey: KEY });
    const saved = await store.audit.append('T1', entry);
    await store.close();
    const audits = lines.filter((l) => l.audit);
    expect(audits).toHaveLength(1);
    expect(audits[0]!.msg).toBe('audit');
    expect(audits[0]!.audit).toEqual({ workspace: 'T1', ...saved, stored: true });
  });

  it('is written even when LOG_LEVEL is above info (and not when it is silent)', async () => {
    const lines = capture('error');
    const store = await createStore({ url: 'memory://', encryptionKey: KEY });
    await store.audit.append('T1', entry);
    expect(lines.filter((l) => l.audit)).toHaveLength(1);
    const silent = capture('silent');
    await store.audit.append('T1', entry);
    expect(silent).toHaveLength(0);
    await store.close();
  });

  it('an entry the store could not take is still logged (stored: false), and the caller sees the error', async () => {
    const lines = capture('info');
    const store = await createStore({ url: `sqlite://${join(dir, 'a.sqlite')}`, encryptionKey: KEY });
    await store.close();
    await expect(store.audit.append('T1', entry)).rejects.toThrow();
    const audits = lines.filter((l) => l.audit);
    expect(audits).toHaveLength(1);
    expect(audits[0]!.audit).toMatchObject({ workspace: 'T1', action: 'watch.add', stored: false });
  });

  it('an entry the store could not take is logged with its detail scrubbed of tokens, as a stored one is', async () => {
    const lines = capture('info');
    const store = await createStore({ url: `sqlite://${join(dir, 'b.sqlite')}`, encryptionKey: KEY });
    await store.close();
    const token = `xoxb-${'1'.repeat(12)}-${'2'.repeat(12)}-${'a'.repeat(24)}`;
    await expect(
      store.audit.append('T1', { ...entry, detail: `pasted ${token} by mistake` }),
    ).rejects.toThrow();
    const audits = lines.filter((l) => l.audit);
    expect(audits).toHaveLength(1);
    expect(JSON.stringify(audits[0])).not.toContain(token);
    expect((audits[0]!.audit as { detail: string }).detail).toContain('[REDACTED]');
  });

  it('the in-store cap is the AUDIT_CAP given to the store', async () => {
    capture('silent');
    const store = await createStore({ url: 'memory://', encryptionKey: KEY, auditCap: 100 });
    for (let i = 0; i < 105; i++) await store.audit.append('T1', { ...entry, detail: `n${i}` });
    const all = await store.audit.list('T1', { limit: 500 });
    expect(all).toHaveLength(100);
    expect(all[0]!.detail).toBe('n104');
    await store.close();
  });
});
