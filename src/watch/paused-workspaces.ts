/**
 * A workspace whose job watching is paused: the service refused its credentials (HTTP 401) or
 * its account (HTTP 403) after the API layer's own token refresh. The reason, in the Slack
 * layer's words (`WatchWords.pollingPaused`), is kept in the workspace's settings
 * (`pollingPausedReason`) so every replica and a restart see it; the pause emits one
 * `admin-alert`; `resume(ws)` clears it once the credentials are fixed.
 */
import { AuthError, type PermissionError } from '../api/errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { WatchEvent, WatchWords } from './types.js';

export class PausedWorkspaces {
  /** The reasons last read or written, for `status()`. */
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly d: {
      store: Store;
      words: WatchWords;
      log: Logger;
      emit: (e: WatchEvent) => void;
    },
  ) {}

  /** The workspace's paused reason (read from its settings), or undefined when it is not paused. */
  async reasonOf(ws: string): Promise<string | undefined> {
    const s = await this.d.store.settings.get(ws);
    const r = s.pollingPausedReason;
    if (r) this.cache.set(ws, r);
    else this.cache.delete(ws);
    return r;
  }

  /** Pause the workspace for refused credentials (once: a paused workspace is not alerted again). */
  async pause(ws: string, e: AuthError | PermissionError): Promise<void> {
    const { store, words, log, emit } = this.d;
    const current = await store.settings.get(ws);
    if (current.pollingPausedReason) return; // alert once
    const kind = e instanceof AuthError ? 'auth' : 'permission';
    const reason = words.pollingPaused(kind);
    await store.settings.put(ws, { ...current, pollingPausedReason: reason });
    this.cache.set(ws, reason);
    log.warn({ workspace: ws, endpoint: e.endpoint }, 'polling paused: credentials refused');
    emit({ type: 'admin-alert', workspace: ws, reason: kind, message: reason });
  }

  /** Clear the workspace's pause (credentials fixed). */
  async resume(ws: string): Promise<void> {
    const s = await this.d.store.settings.get(ws);
    if (s.pollingPausedReason) {
      const { pollingPausedReason: _r, ...rest } = s;
      await this.d.store.settings.put(ws, rest);
    }
    this.cache.delete(ws);
  }

  /** The paused workspaces last seen, with their reasons. */
  snapshot(): Record<string, string> {
    return Object.fromEntries(this.cache);
  }
}
