/**
 * Freeze a test Redis (SIGSTOP) so that commands sent to it wait for their reply, and tell when
 * they have reached it: a SIGKILL afterwards fails exactly the calls in flight, whatever the
 * machine's load (a timed kill hits "a call in flight" only by chance). Linux: the receive queues
 * come from /proc/net/tcp. Loopback only.
 */
import { readFileSync } from 'node:fs';
import { createClient } from '@keyv/redis';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes clients sent to the Redis on `port` that it has not read yet (its established sockets). */
export function unreadByRedis(port: number): number {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let bytes = 0;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx_queue:rx_queue ...; st 01 = ESTABLISHED.
    if (f[1]?.endsWith(local) && f[3] === '01') bytes += Number.parseInt(f[4]?.split(':')[1] ?? '0', 16);
  }
  return bytes;
}

/** Wait (bounded) until `cond` holds. */
export async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(1);
  }
}

export interface FrozenRedis {
  /** Unread bytes when frozen (or when last marked). */
  readonly marked: number;
  /** Resolves once more bytes than `marked` wait unread in Redis (a further command arrived). */
  untilMoreUnread(what: string): Promise<void>;
  /** Record the current unread bytes as the new mark. */
  mark(): void;
}

/** SIGSTOP the Redis at `url` (its pid from INFO server); SIGKILL or SIGCONT it afterwards. */
export async function freezeRedis(url: string, port: number): Promise<FrozenRedis> {
  const admin = createClient({ url });
  admin.on('error', () => undefined);
  await admin.connect();
  const info = String(await admin.sendCommand(['INFO', 'server']));
  admin.destroy();
  const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  if (!(pid > 0)) throw new Error('INFO server gave no process_id');
  process.kill(pid, 'SIGSTOP');
  let marked = unreadByRedis(port);
  return {
    get marked() {
      return marked;
    },
    untilMoreUnread: (what) => until(what, () => unreadByRedis(port) > marked),
    mark() {
      marked = unreadByRedis(port);
    },
  };
}
