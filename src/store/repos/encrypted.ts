/**
 * The encrypted repositories: Slack installations and the service credentials of a workspace.
 * They only ever hand the backend a JWE string (the vault encrypts, bound to the record's
 * repository and workspace), keep an index of their workspaces, never write over a record a
 * newer release wrote, and tell which records no configured key opens (key rotation, re-encrypt).
 */
import { z } from 'zod';
import { type Backend, KEEP } from '../backend.js';
import { StoreNewerDocumentError } from '../errors.js';
import { assertWorkspaceKey, type KeySpace } from '../keys.js';
import type { CredentialsRepo, InstallationRepo, StoredCredentials, WorkspaceKey } from '../types.js';
import type { Vault } from '../vault.js';
import { unstamp, VERSION_FIELD } from '../versions.js';
import { parseWith, readRecord, type VersionContext } from './records.js';

const watermarkingSchema = z.object({ accountId: z.string(), accessKey: z.string(), baseUrl: z.string() });
const serviceSchema = z.object({
  accountId: z.string(),
  accountSeq: z.string(),
  secretKey: z.string(),
  baseUrl: z.string(),
});
export const storedCredentialsSchema = z.object({
  credentials: z.object({
    siteIds: z.array(z.string()),
    defaultSiteId: z.string(),
    watermarking: watermarkingSchema.optional(),
    service: serviceSchema.optional(),
  }),
  verifiedAt: z.string(),
  savedBy: z.string(),
});

const installationSchema = z.custom<object>((v) => typeof v === 'object' && v !== null, {
  message: 'expected an object',
});

class EncryptedRecords<T> {
  constructor(
    private readonly backend: Backend,
    private readonly vault: Vault,
    private readonly repo: 'installations' | 'credentials',
    private readonly keyOf: (ws: WorkspaceKey) => string,
    private readonly indexKey: string,
    private readonly schema: { parse(v: unknown): T },
    private readonly vctx: VersionContext,
  ) {}

  private context(ws: WorkspaceKey): string {
    return `${this.repo}:${ws}`;
  }

  async put(ws: WorkspaceKey, value: T): Promise<void> {
    const checked = parseWith(this.schema, value, `${this.repo} for ${assertWorkspaceKey(ws)}`);
    const known = this.vctx.versions.records[this.repo];
    const jwe = await this.vault.encrypt(
      { [VERSION_FIELD]: known, ...(checked as object) },
      this.context(ws),
    );
    // Never over a record a newer release wrote (its version is inside the encrypted text). A
    // record no configured key opens is replaced, as before versions (setup enters it again).
    let newer = false;
    await this.backend.update(this.keyOf(ws), async (old) => {
      newer = false;
      if (old !== undefined) {
        const plain = await this.vault.decrypt(old, this.context(ws)).catch(() => undefined);
        if (plain !== undefined && unstamp(plain).version > known) {
          newer = true;
          return KEEP;
        }
      }
      return jwe;
    });
    if (newer) throw new StoreNewerDocumentError(`Stored ${this.repo} of ${ws}`);
    await this.backend.sAdd(this.indexKey, [ws]);
  }

  async get(ws: WorkspaceKey): Promise<T | undefined> {
    const jwe = await this.backend.get(this.keyOf(ws));
    if (jwe === undefined) return undefined;
    const what = `Stored ${this.repo} of ${ws}`;
    const plain = readRecord(this.vctx, this.repo, await this.vault.decrypt(jwe, this.context(ws)), what);
    return parseWith(this.schema, plain, what);
  }

  async delete(ws: WorkspaceKey): Promise<void> {
    await this.backend.delete([this.keyOf(ws)]);
    await this.backend.sRem(this.indexKey, [ws]);
  }

  async listKeys(): Promise<WorkspaceKey[]> {
    const members = await this.backend.sMembers(this.indexKey);
    const values = await this.backend.getMany(members.map((m) => this.keyOf(m)));
    const missing = members.filter((_, i) => values[i] === undefined);
    if (missing.length > 0) await this.backend.sPruneMissing(this.indexKey, missing, (m) => this.keyOf(m));
    return members.filter((_, i) => values[i] !== undefined).sort();
  }

  /**
   * Records no configured key can open, by their header's key id (no decryption: cheap enough to
   * run at start-up). At most `limit` records are looked at.
   */
  async unreadable(limit: number): Promise<Array<{ workspace: WorkspaceKey; kid: string | undefined }>> {
    const members = (await this.backend.sMembers(this.indexKey)).slice(0, limit);
    if (members.length === 0) return [];
    const values = await this.backend.getMany(members.map((m) => this.keyOf(m)));
    const out: Array<{ workspace: WorkspaceKey; kid: string | undefined }> = [];
    members.forEach((ws, i) => {
      const raw = values[i];
      if (raw === undefined) return;
      const kid = this.vault.kidOf(raw);
      if (kid === undefined || !this.vault.kids.includes(kid)) out.push({ workspace: ws, kid });
    });
    return out;
  }

  /** Rewrite records whose kid is not the current one; returns how many were rewritten. */
  async reencryptAll(): Promise<number> {
    let count = 0;
    for (const ws of await this.backend.sMembers(this.indexKey)) {
      let rewritten = false;
      await this.backend.update(this.keyOf(ws), async (old) => {
        rewritten = false;
        if (old === undefined) return undefined;
        if (this.vault.kidOf(old) === this.vault.currentKid) return old;
        const plain = await this.vault.decrypt(old, this.context(ws));
        rewritten = true;
        return this.vault.encrypt(plain, this.context(ws));
      });
      if (rewritten) count++;
    }
    return count;
  }
}

export function installationRepo(
  backend: Backend,
  vault: Vault,
  ks: KeySpace,
  vctx: VersionContext,
): InstallationRepo {
  const records = new EncryptedRecords<object>(
    backend,
    vault,
    'installations',
    (ws) => ks.installation(ws),
    ks.installationsIndex(),
    installationSchema,
    vctx,
  );
  return {
    save: (key, installation) => records.put(key, installation as object),
    get: (key) => records.get(key),
    delete: (key) => records.delete(key),
    listKeys: () => records.listKeys(),
    reencryptAll: () => records.reencryptAll(),
    unreadable: (limit = 1000) => records.unreadable(limit),
  };
}

export function credentialsRepo(
  backend: Backend,
  vault: Vault,
  ks: KeySpace,
  vctx: VersionContext,
): CredentialsRepo {
  const records = new EncryptedRecords<StoredCredentials>(
    backend,
    vault,
    'credentials',
    (ws) => ks.credentials(ws),
    ks.credentialsIndex(),
    storedCredentialsSchema,
    vctx,
  );
  return {
    put: (key, value) => records.put(key, value),
    get: (key) => records.get(key),
    delete: (key) => records.delete(key),
    reencryptAll: () => records.reencryptAll(),
    unreadable: (limit = 1000) => records.unreadable(limit),
  };
}
