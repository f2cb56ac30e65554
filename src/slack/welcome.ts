/**
 * The app's first words on install (OAuth distribution): the person who installed it gets one
 * direct message saying what to do next (`/dwm setup`, then invite and watch). Members who open
 * the app before it is set up are told who to ask by the Home tab (features/home). Sent after the
 * installation is stored, never awaited by the install page; a failure is logged, not raised.
 */
import type { Installation, InstallationStore } from '@slack/bolt';
import type { AppDeps } from './deps.js';
import { newWebClient } from './kit/web/client.js';
import { leastPrivilegeOnly, scopeReport, scopeWords } from './startup-check.js';

export const WELCOME_TEXT =
  ':wave: *DRM ChatOps is installed.* Next: run `/dwm setup` to connect this workspace to the service (the site ids and the service keys; they are checked live, then stored encrypted). Then, in a channel: `/invite @drm-chatops` and `/dwm watch`. Members who open the app before that are told to ask you.';

/**
 * The first words after an install in a workspace whose setup is still saved (installed again
 * within the grace period of an uninstall, or an install updated): "run /dwm setup" would not be
 * true there.
 */
export const WELCOME_BACK_TEXT =
  ':wave: *DRM ChatOps is installed.* This workspace is already connected to the service: its setup was kept (`/dwm setup` shows it). In a channel, `/dwm watches` lists what is watched there.';

/** What the installer can do about scopes Slack did not grant. */
export const SCOPE_FIX_FOR_INSTALLER =
  'To turn them on, install the app again and allow every permission it asks for (where apps need approval, ask a Slack admin of the workspace to approve these scopes).';

/**
 * The welcome for an installation granted `granted` of the `wanted` scopes (undefined: Slack did
 * not say, nothing is added).
 */
export function welcomeText(
  granted: readonly string[] | undefined,
  wanted: readonly string[],
  connected = false,
): string {
  const base = connected ? WELCOME_BACK_TEXT : WELCOME_TEXT;
  if (!granted) return base;
  const report = scopeReport(granted, wanted);
  if (!report.missing.length) return base;
  return `${base}\n\n${leastPrivilegeOnly(report) ? ':information_source:' : ':warning:'} ${scopeWords(report, SCOPE_FIX_FOR_INSTALLER)}`;
}

/**
 * The installation store, with the welcome message sent after each installation is stored;
 * `wantedScopes` are the bot scopes the install asks for (botScopesOf).
 */
export function withWelcome(
  inner: InstallationStore,
  deps: Pick<AppDeps, 'config' | 'logger' | 'store'>,
  wantedScopes: readonly string[],
): InstallationStore {
  const store: InstallationStore = {
    async storeInstallation(installation, logger) {
      await inner.storeInstallation(installation, logger);
      void welcome(deps, installation as Installation, wantedScopes);
    },
    fetchInstallation: (query, logger) => inner.fetchInstallation(query, logger),
  };
  const remove = inner.deleteInstallation?.bind(inner);
  if (remove) store.deleteInstallation = remove;
  return store;
}

async function welcome(
  deps: Pick<AppDeps, 'config' | 'logger' | 'store'>,
  installation: Installation,
  wanted: readonly string[],
): Promise<void> {
  const granted = installation.bot?.scopes;
  const team = installation.enterprise?.id ?? installation.team?.id;
  if (granted) {
    const report = scopeReport(granted, wanted);
    if (report.missing.length)
      deps.logger[leastPrivilegeOnly(report) ? 'info' : 'warn'](
        { teamId: team, missing: report.missing },
        scopeWords(report, 'The installer is told so in the welcome message.'),
      );
  }
  const token = installation.bot?.token;
  const user = installation.user?.id;
  if (!token || !user) return;
  try {
    const ws =
      installation.isEnterpriseInstall && installation.enterprise?.id
        ? installation.enterprise.id
        : installation.team?.id;
    const connected = ws
      ? (await deps.store.credentials.get(ws).catch(() => undefined)) !== undefined
      : false;
    await newWebClient(deps, token, { retryConfig: { retries: 1 } }).chat.postMessage({
      channel: user,
      text: welcomeText(granted, wanted, connected),
    });
  } catch (err) {
    deps.logger.warn({ err, userId: user }, 'could not send the welcome message to the installer');
  }
}
