/**
 * Socket Mode connection state for /readyz. In Socket Mode Slack delivers every request over one
 * WebSocket; when it is down (before the first `hello`, or while the client reconnects) the
 * replica cannot serve anything, so readiness says so. The state follows the SocketModeClient's
 * own events: `connected` (Slack sent hello) makes it ready; `close` (the WebSocket closed and no
 * other one is active: the client waits a few seconds before it reconnects), `disconnected` and
 * `reconnecting` make it not ready until the next `connected`. A `close` of an old socket while a
 * refreshed one is already active (Slack's periodic "refresh_requested") changes nothing.
 */
import type { Logger } from '../log.js';
import type { ReadinessCheck } from './health.js';

export type SocketPhase = 'connecting' | 'connected' | 'reconnecting' | 'disconnected';

/** What is used of @slack/socket-mode's SocketModeClient (its `websocket` is public in 2.x/3.x). */
export interface SocketClientLike {
  on(event: string, fn: () => void): unknown;
  websocket?: { isActive(): boolean } | undefined;
}

export interface SocketState {
  /** Follow a SocketModeClient (any emitter of its state events). */
  attach(client: SocketClientLike, logger?: Logger): void;
  phase(): SocketPhase;
  check(): ReadinessCheck;
}

export function createSocketState(): SocketState {
  let phase: SocketPhase = 'connecting';
  let since = Date.now();
  const set = (p: SocketPhase, logger?: Logger) => {
    if (p === phase) return;
    phase = p;
    since = Date.now();
    if (p === 'connected') logger?.info('Socket Mode connected');
    else logger?.warn({ phase: p }, 'Socket Mode connection is not up');
  };
  return {
    attach(client, logger) {
      client.on('connected', () => set('connected', logger));
      client.on('reconnecting', () => set('reconnecting', logger));
      client.on('disconnected', () => set('disconnected', logger));
      client.on('close', () => {
        if (!client.websocket?.isActive()) set('disconnected', logger);
      });
    },
    phase: () => phase,
    check: () => ({
      name: 'socket',
      ok: phase === 'connected',
      detail:
        phase === 'connected' ? 'connected' : `${phase} for ${Math.round((Date.now() - since) / 1000)} s`,
    }),
  };
}
