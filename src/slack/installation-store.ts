/**
 * Bolt InstallationStore backed by store.installations (encrypted at rest by the store's vault).
 * Key: the team id, or the enterprise id for org-wide installs (workspaceKeyOf).
 *
 * fetchInstallation of a team inside an org falls back to the org-wide install when the team has
 * none of its own, so one org install serves every workspace of the org.
 */
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { clearRetention } from '../ops/retention.js';
import { workspaceKeyOf } from '../store/keys.js';
import type { Store, WorkspaceKey } from '../store/types.js';

/** The parts of a stored installation the bot relies on; anything else passes through untouched. */
const StoredInstallation = z.looseObject({
  team: z.looseObject({ id: z.string() }).nullish(),
  enterprise: z.looseObject({ id: z.string() }).nullish(),
  isEnterpriseInstall: z.boolean().optional(),
  bot: z
    .looseObject({
      token: z.string().min(1),
      userId: z.string(),
      id: z.string().optional(),
      scopes: z.array(z.string()).optional(),
    })
    .optional(),
  user: z.looseObject({ id: z.string() }),
});

export class InstallationNotFoundError extends Error {
  constructor(key: string) {
    super(`No installation for workspace ${key}: the app is not installed there (or was uninstalled).`);
    this.name = 'InstallationNotFoundError';
  }
}

function keyOfQuery(q: InstallationQuery<boolean>): WorkspaceKey {
  return workspaceKeyOf({
    isEnterpriseInstall: q.isEnterpriseInstall,
    ...(q.enterpriseId ? { enterpriseId: q.enterpriseId } : {}),
    ...(q.teamId ? { teamId: q.teamId } : {}),
  });
}

export function createInstallationStore(store: Store, logger: Logger): InstallationStore {
  const log = logger.child({ component: 'installation-store' });

  async function load(key: WorkspaceKey): Promise<Installation | undefined> {
    const raw = await store.installations.get(key);
    if (raw === undefined) return undefined;
    const parsed = StoredInstallation.safeParse(raw);
    if (!parsed.success) {
      log.error(
        { workspace: key, issues: parsed.error.issues.map((i) => i.path.join('.')) },
        'stored installation is malformed',
      );
      throw new Error(`The stored installation of workspace ${key} is malformed; reinstall the app there.`);
    }
    return parsed.data as unknown as Installation;
  }

  return {
    async storeInstallation(installation: Installation): Promise<void> {
      const key = workspaceKeyOf({
        isEnterpriseInstall: installation.isEnterpriseInstall,
        ...(installation.enterprise?.id ? { enterpriseId: installation.enterprise.id } : {}),
        ...(installation.team?.id ? { teamId: installation.team.id } : {}),
      });
      const parsed = StoredInstallation.safeParse(installation);
      if (!parsed.success || !installation.bot?.token) {
        throw new Error('Refusing to store an installation without a bot token.');
      }
      await store.installations.save(key, installation);
      // Reinstalled within the grace period of an uninstall: the workspace's data is kept.
      const wasUninstalled = await clearRetention(store, key);
      if (wasUninstalled) {
        log.info(
          { workspace: key, uninstalledAt: wasUninstalled.uninstalledAt, phase: wasUninstalled.phase },
          'workspace reinstalled: the uninstall is undone',
        );
      }
      log.info(
        {
          workspace: key,
          enterprise: Boolean(installation.isEnterpriseInstall),
          scopes: installation.bot.scopes,
        },
        'installation saved',
      );
    },

    async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
      const key = keyOfQuery(query);
      let found = await load(key);
      if (!found && !query.isEnterpriseInstall && query.enterpriseId) {
        found = await load(workspaceKeyOf({ enterpriseId: query.enterpriseId }));
        if (found && !found.isEnterpriseInstall) found = undefined;
      }
      if (!found) throw new InstallationNotFoundError(key);
      return found;
    },

    async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
      const key = keyOfQuery(query);
      await store.installations.delete(key);
      log.info({ workspace: key }, 'installation deleted');
    },
  };
}
