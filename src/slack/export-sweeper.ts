/**
 * Deletes the bot's own exports from Slack after EXPORT_RETENTION_DAYS (docs/security.md,
 * "Personal data"): the CSV files it uploaded (DRM data, job tasks, registration reports), which
 * name end users, devices and recipients. The uploads are remembered by kit/web/files.ts
 * (src/ops/exports.ts); the notify runtime runs `sweep` once an hour on its clock (at most
 * `MAX_PER_SWEEP` files per workspace per sweep, so a backlog drains over a few hours without a
 * burst against Slack's files.delete limit). files.delete with the bot token: a file already gone
 * (file_not_found, file_deleted) or that the bot may not delete (cant_delete_file) is forgotten;
 * any other failure (rate limit, outage) keeps the record for the next sweep.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import { BotExports, exportRetentionDays } from '../ops/exports.js';
import type { Clock } from '../watch/types.js';
import type { AppDeps } from './deps.js';

export const EXPORT_SWEEP_MS = 60 * 60_000;
const MAX_PER_SWEEP = 200;
const DAY_MS = 86_400_000;
const GONE = new Set(['file_not_found', 'file_deleted', 'cant_delete_file']);

export interface ExportSweeper {
  /** Delete what is due now; returns how many files were deleted and how many failed. */
  sweep(): Promise<{ deleted: number; failed: number }>;
  start(): void;
  stop(): Promise<void>;
}

export function createExportSweeper(o: {
  deps: Pick<AppDeps, 'store' | 'config'>;
  clock: Clock;
  logger: Logger;
  client: (ws: string) => Promise<WebClient>;
}): ExportSweeper {
  const exports = new BotExports(o.deps.store);
  let timer: unknown;
  let running = false;
  let current: Promise<unknown> | undefined;

  /** One sweep at a time in this process (the timer's and a direct call never overlap). */
  let chain: Promise<unknown> = Promise.resolve();
  function sweep(): Promise<{ deleted: number; failed: number }> {
    const run = chain.then(sweepOnce);
    chain = run.catch(() => undefined);
    return run;
  }

  async function sweepOnce(): Promise<{ deleted: number; failed: number }> {
    const out = { deleted: 0, failed: 0 };
    const days = exportRetentionDays(o.deps.config);
    if (days === 0) return out;
    const before = o.clock.now() - days * DAY_MS;
    for (const ws of await exports.workspaces()) {
      let client: WebClient;
      try {
        client = await o.client(ws);
      } catch (err) {
        // Uninstalled: its records went with its data (the store's purge); drop it from the list.
        await exports.pruneWorkspace(ws).catch(() => undefined);
        o.logger.warn({ err, workspace: ws }, 'exports not swept: no Slack client for the workspace');
        continue;
      }
      for (const r of await exports.due(ws, before, MAX_PER_SWEEP)) {
        try {
          await client.files.delete({ file: r.fileId });
          await exports.forget(ws, r.fileId);
          out.deleted++;
        } catch (err) {
          const code = (err as { data?: { error?: string } }).data?.error;
          if (code && GONE.has(code)) {
            await exports.forget(ws, r.fileId);
            continue;
          }
          out.failed++;
          o.logger.warn(
            { err, workspace: ws, file: r.fileId },
            'could not delete an expired export; next sweep',
          );
          break; // rate limit or outage: the rest of this workspace waits for the next sweep
        }
      }
      await exports.pruneWorkspace(ws).catch(() => undefined);
    }
    if (out.deleted || out.failed) o.logger.info(out, 'expired exports swept');
    return out;
  }

  const arm = (ms: number) => {
    timer = o.clock.setTimer(() => {
      if (!running) return;
      current = sweep()
        .catch((err: unknown) => o.logger.error({ err }, 'export sweep failed'))
        .finally(() => {
          current = undefined;
          if (running) arm(EXPORT_SWEEP_MS);
        });
    }, ms);
  };

  return {
    sweep,
    start() {
      if (running) return;
      running = true;
      arm(EXPORT_SWEEP_MS);
    },
    async stop() {
      running = false;
      if (timer !== undefined) o.clock.clearTimer(timer);
      timer = undefined;
      if (current) await current;
    },
  };
}
