/**
 * The app's first words on install (OAuth distribution): the person who installed it gets one
 * direct message saying what to do next (`/dwm setup`, then invite and watch). Members who open
 * the app before it is set up are told who to ask by the Home tab (features/home). Sent after the
 * installation is stored, never awaited by the install page; a failure is logged, not raised.
 */
import type { Installation, InstallationStore } from '@slack/bolt';
import type { AppDeps } from './deps.js';
import { newWebClient } from './kit/web-client.js';

export const WELCOME_TEXT =
  ':wave: *DRM ChatOps is installed.* Next: run `/dwm setup` to connect this workspace to the service (the site ids and the service keys; they are checked live, then stored encrypted). Then, in a channel: `/invite @drm-chatops` and `/dwm watch`. Members who open the app before that are told to ask you.';

/** The installation store, with the welcome message sent after each installation is stored. */
export function withWelcome(
  inner: InstallationStore,
  deps: Pick<AppDeps, 'config' | 'logger'>,
): InstallationStore {
  const store: InstallationStore = {
    async storeInstallation(installation, logger) {
      await inner.storeInstallation(installation, logger);
      void welcome(deps, installation as Installation);
    },
    fetchInstallation: (query, logger) => inner.fetchInstallation(query, logger),
  };
  const remove = inner.deleteInstallation?.bind(inner);
  if (remove) store.deleteInstallation = remove;
  return store;
}

async function welcome(deps: Pick<AppDeps, 'config' | 'logger'>, installation: Installation): Promise<void> {
  const token = installation.bot?.token;
  const user = installation.user?.id;
  if (!token || !user) return;
  try {
    await newWebClient(deps, token, { retryConfig: { retries: 1 } }).chat.postMessage({
      channel: user,
      text: WELCOME_TEXT,
    });
  } catch (err) {
    deps.logger.warn({ err, userId: user }, 'could not send the welcome message to the installer');
  }
}
