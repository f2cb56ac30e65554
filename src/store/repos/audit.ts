/**
 * The audit log of a workspace: a capped list, newest first (AUDIT_CAP entries kept, the oldest
 * dropped), time-ordered ids, details scrubbed of anything token-like and cut, and paging that
 * stays exact when the `before` entry has been trimmed.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { scrubSecrets } from '../../log.js';
import type { Backend } from '../backend.js';
import type { KeySpace } from '../keys.js';
import type { AuditEntry, AuditRepo, WorkspaceKey } from '../types.js';
import { stampedJson } from '../versions.js';
import { parseJson, parseWith, readRecord, type VersionContext } from './records.js';

/** Entries kept per workspace (oldest dropped first). */
export const AUDIT_CAP = 5000;
export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 500;
const AUDIT_DETAIL_MAX = 2000;
const AUDIT_SCAN_CHUNK = 250;

const auditInputSchema = z.object({
  userId: z.string().min(1).max(64),
  action: z.string().min(1).max(100),
  detail: z.string(),
  result: z.enum(['ok', 'error', 'refused']),
  siteId: z.string().max(100).optional(),
});

const auditEntrySchema = auditInputSchema.extend({ id: z.string(), at: z.string() });

let auditSeq = 0;
/** Time-ordered id: 9 base36 chars of ms, a per-process sequence, 4 random hex chars. */
export function newAuditId(now = Date.now()): string {
  auditSeq = (auditSeq + 1) % 36 ** 4;
  return (
    now.toString(36).padStart(9, '0') +
    auditSeq.toString(36).padStart(4, '0') +
    randomBytes(2).toString('hex')
  );
}

export function auditRepo(backend: Backend, ks: KeySpace, vctx: VersionContext, cap = AUDIT_CAP): AuditRepo {
  function parseEntry(raw: string, ws: WorkspaceKey): AuditEntry {
    const what = `Audit entry of ${ws}`;
    return parseWith(auditEntrySchema, readRecord(vctx, 'audit', parseJson(raw, what), what), what);
  }
  return {
    async append(key, entry) {
      const input = parseWith(auditInputSchema, entry, 'Audit entry');
      const now = Date.now();
      // Defence in depth: the detail is a plain-text summary, but scrub anything token-like.
      let detail = scrubSecrets(input.detail);
      if (detail.length > AUDIT_DETAIL_MAX) detail = `${detail.slice(0, AUDIT_DETAIL_MAX - 1)}…`;
      const full: AuditEntry = {
        id: newAuditId(now),
        at: new Date(now).toISOString(),
        userId: input.userId,
        action: input.action,
        detail,
        result: input.result,
        ...(input.siteId !== undefined ? { siteId: input.siteId } : {}),
      };
      await backend.lPushCapped(ks.audit(key), stampedJson(full, vctx.versions.records.audit) as string, cap);
      return full;
    },
    async list(key, opts = {}) {
      const limit = Math.min(Math.max(1, Math.floor(opts.limit ?? AUDIT_DEFAULT_LIMIT)), AUDIT_MAX_LIMIT);
      const listKey = ks.audit(key);
      const before = opts.before;
      const out: AuditEntry[] = [];
      // Pass 1: position-based paging (exact even if replicas' clocks differ slightly).
      let found = before === undefined;
      for (let start = 0; out.length < limit; start += AUDIT_SCAN_CHUNK) {
        const chunk = await backend.lRange(listKey, start, start + AUDIT_SCAN_CHUNK - 1);
        for (const raw of chunk) {
          const e = parseEntry(raw, key);
          if (!found) {
            if (e.id === before) found = true;
            continue;
          }
          out.push(e);
          if (out.length >= limit) break;
        }
        if (chunk.length < AUDIT_SCAN_CHUNK) break;
      }
      if (found || before === undefined) return out;
      // Pass 2: the `before` entry is gone (trimmed by the cap): ids are time-ordered, compare them.
      for (let start = 0; out.length < limit; start += AUDIT_SCAN_CHUNK) {
        const chunk = await backend.lRange(listKey, start, start + AUDIT_SCAN_CHUNK - 1);
        for (const raw of chunk) {
          const e = parseEntry(raw, key);
          if (e.id < before) out.push(e);
          if (out.length >= limit) break;
        }
        if (chunk.length < AUDIT_SCAN_CHUNK) break;
      }
      return out;
    },
    async deleteAll(key) {
      await backend.delete([ks.audit(key)]);
    },
  };
}
