/**
 * Credentials for a test bot: the emulator's demo account, and the env settings (DWM_*,
 * SERVICE_API_*) that give a bot those credentials in the env credentials mode.
 */
import type { WorkspaceCredentials } from '../../src/api/types.js';
import type { Env } from '../../src/config.js';
import type { EmulatorHandle } from '../emulator/types.js';

/** The emulator's demo account, with its base URLs. */
export function emulatorCredentials(emulator: EmulatorHandle): WorkspaceCredentials {
  return {
    siteIds: [...emulator.demo.siteIds],
    defaultSiteId: emulator.demo.defaultSiteId,
    watermarking: { ...emulator.demo.watermarking, baseUrl: emulator.wmBaseUrl },
    service: { ...emulator.demo.service, baseUrl: emulator.serviceBaseUrl },
  };
}

/** The settings that configure these credentials from the environment. */
export function credentialsEnv(creds: WorkspaceCredentials): Env {
  const wm = creds.watermarking;
  const svc = creds.service;
  return {
    DWM_SITE_IDS: creds.siteIds.join(','),
    DWM_DEFAULT_SITE: creds.defaultSiteId,
    ...(wm ? { DWM_BASE_URL: wm.baseUrl, DWM_ACCOUNT_ID: wm.accountId, DWM_ACCESS_KEY: wm.accessKey } : {}),
    ...(svc
      ? {
          SERVICE_API_BASE_URL: svc.baseUrl,
          SERVICE_API_ACCOUNT_ID: svc.accountId,
          SERVICE_API_ACCOUNT_SEQ: svc.accountSeq,
          SERVICE_API_SECRET_KEY: svc.secretKey,
        }
      : {}),
  };
}
