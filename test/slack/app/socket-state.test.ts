/** Socket Mode readiness follows the SocketModeClient's events (unit; the e2e is app/socket.e2e). */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createSocketState } from '../../../src/slack/socket-state.js';

function fakeClient() {
  const e = new EventEmitter() as EventEmitter & { websocket?: { isActive(): boolean } };
  let active = false;
  e.websocket = { isActive: () => active };
  return { e, setActive: (a: boolean) => (active = a) };
}

describe('socket state', () => {
  it('is not ready until hello, then follows close, reconnecting and connected', () => {
    const s = createSocketState();
    const { e, setActive } = fakeClient();
    s.attach(e);
    expect(s.check()).toMatchObject({ name: 'socket', ok: false });
    setActive(true);
    e.emit('connected');
    expect(s.check()).toEqual({ name: 'socket', ok: true, detail: 'connected' });
    // Slack's refresh: the old socket closes while the new one is active: still ready.
    e.emit('close');
    expect(s.phase()).toBe('connected');
    setActive(false);
    e.emit('close');
    expect(s.phase()).toBe('disconnected');
    expect(s.check().ok).toBe(false);
    e.emit('reconnecting');
    expect(s.phase()).toBe('reconnecting');
    e.emit('connected');
    expect(s.check().ok).toBe(true);
    e.emit('disconnected');
    expect(s.check()).toMatchObject({ ok: false });
    expect(s.check().detail).toMatch(/^disconnected for \d+ s$/);
  });
});
