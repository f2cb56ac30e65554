/**
 * A workspace's settings (admins, admin user group, audit channel, paused polling, shared
 * channels): one JSON record, the defaults when none is stored, never written over a newer
 * release's record.
 */
import { z } from 'zod';
import type { Backend } from '../backend.js';
import { StoreNewerDocumentError } from '../errors.js';
import type { KeySpace } from '../keys.js';
import type { SettingsRepo, WorkspaceSettings } from '../types.js';
import { stampedJson } from '../versions.js';
import { parseJson, parseWith, readRecord, type VersionContext } from './records.js';

export const workspaceSettingsSchema = z.object({
  adminUserIds: z.array(z.string()),
  adminUsergroupId: z.string().optional(),
  auditChannelId: z.string().optional(),
  pollingPausedReason: z.string().optional(),
  sharedChannels: z
    .array(z.object({ channelId: z.string(), by: z.string(), at: z.string() }))
    .max(1000)
    .optional(),
});

export function defaultSettings(): WorkspaceSettings {
  return { adminUserIds: [] };
}

export function settingsRepo(backend: Backend, ks: KeySpace, vctx: VersionContext): SettingsRepo {
  const known = vctx.versions.records.settings;
  return {
    async get(key) {
      const raw = await backend.get(ks.settings(key));
      if (raw === undefined) return defaultSettings();
      const what = `Settings of ${key}`;
      return parseWith(
        workspaceSettingsSchema,
        readRecord(vctx, 'settings', parseJson(raw, what), what),
        what,
      );
    },
    async put(key, value) {
      const checked = parseWith(workspaceSettingsSchema, value, `Settings for ${key}`);
      const written = await backend.setUnlessNewer(
        ks.settings(key),
        stampedJson(checked, known) as string,
        known,
      );
      if (!written) throw new StoreNewerDocumentError(`Settings of ${key}`);
    },
    async delete(key) {
      await backend.delete([ks.settings(key)]);
    },
  };
}
