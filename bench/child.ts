/**
 * Child processes of the benchmark suite: the system under test runs in its own process so that
 * its CPU, memory and event loop are not shared with the load generator or the fakes.
 *
 * - `childEntry(name)` bundles `bench/<name>.ts` with esbuild (installed with tsx) into
 *   `bench/.build/<name>.mjs`, npm packages left external, so the child runs compiled JavaScript
 *   under plain node, as in production. When esbuild cannot be loaded it falls back to tsx (the
 *   TypeScript loader adds memory and start-up time; `runtime` says which).
 * - `startRpcChild` forks such an entry and talks to it over IPC with a tiny request/reply
 *   protocol (`serveRpc` on the child side). Every message is checked with zod on arrival.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export interface ChildEntry {
  script: string;
  execArgv: string[];
  runtime: string;
}

/**
 * One build per entry and process: figures start several children of the same entry at once, and
 * concurrent builds rewriting the same file let a child start on a half-written bundle (it then
 * exits without a word).
 */
const entries = new Map<string, Promise<ChildEntry>>();

export function childEntry(name: string): Promise<ChildEntry> {
  let entry = entries.get(name);
  if (!entry) {
    entry = buildEntry(name);
    entries.set(name, entry);
  }
  return entry;
}

async function buildEntry(name: string): Promise<ChildEntry> {
  const src = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  try {
    // A variable specifier keeps TypeScript from resolving esbuild's types (not a dependency).
    const specifier = 'esbuild';
    const esbuild = (await import(specifier)) as {
      build: (o: Record<string, unknown>) => Promise<unknown>;
    };
    const out = fileURLToPath(new URL(`./.build/${name}.mjs`, import.meta.url));
    await esbuild.build({
      entryPoints: [src],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
    });
    return { script: out, execArgv: [], runtime: 'compiled JS (esbuild bundle, plain node)' };
  } catch {
    return { script: src, execArgv: ['--import', 'tsx'], runtime: 'tsx (TypeScript loader)' };
  }
}

const requestSchema = z.object({
  rpc: z.literal(1),
  id: z.number().int(),
  method: z.string(),
  params: z.unknown(),
});
const replySchema = z.union([
  z.object({ rpc: z.literal(1), ready: z.literal(true) }),
  z.object({
    rpc: z.literal(1),
    id: z.number().int(),
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: z.string().optional(),
  }),
]);

export type RpcHandlers = Record<string, (params: unknown) => Promise<unknown> | unknown>;

/** Child side: answer the parent's requests with `handlers`, then tell it we are ready. */
export function serveRpc(handlers: RpcHandlers): void {
  process.on('message', (raw: unknown) => {
    const req = requestSchema.safeParse(raw);
    if (!req.success) return;
    const { id, method, params } = req.data;
    const handler = handlers[method];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown method ${method}`);
        return handler(params);
      })
      .then(
        (result) => process.send?.({ rpc: 1, id, ok: true, result }),
        (e: unknown) =>
          process.send?.({
            rpc: 1,
            id,
            ok: false,
            error: e instanceof Error ? (e.stack ?? e.message) : String(e),
          }),
      );
  });
  process.send?.({ rpc: 1, ready: true });
}

export interface RpcChild {
  readonly child: ChildProcess;
  readonly runtime: string;
  call<T>(method: string, params: unknown, schema: z.ZodType<T>, timeoutMs?: number): Promise<T>;
  /** Last lines the child wrote to stdout/stderr (bounded), for error messages and notes. */
  output(): string;
  /** Lines of output whose pino level is warn or above. */
  warnLines(): number;
  /** Wait for the child to exit (it should, after its own stop method); SIGTERM after 3 s. */
  stop(): Promise<void>;
}

export interface StartChildOptions {
  /** Extra node flags (e.g. --max-old-space-size=...). */
  nodeArgs?: string[];
  env?: Record<string, string | undefined>;
  startTimeoutMs?: number;
}

export async function startRpcChild(name: string, opts: StartChildOptions = {}): Promise<RpcChild> {
  const entry = await childEntry(name);
  const child = fork(entry.script, [], {
    // Explicit execArgv: never inherit the parent's (tsx's loader flags under `npm run bench`).
    execArgv: [...entry.execArgv, ...(opts.nodeArgs ?? [])],
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let tail = '';
  let warns = 0;
  const onData = (buf: Buffer) => {
    const s = buf.toString('utf8');
    for (const m of s.matchAll(/"level":(\d+)/g)) if (Number(m[1]) >= 40) warns++;
    tail = (tail + s).slice(-4000);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      for (const p of pending.values()) {
        p.reject(new Error(`${name}: child exited (code ${code}, signal ${signal}). Output:\n${tail}`));
      }
      pending.clear();
      resolve();
    });
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: child not ready after ${opts.startTimeoutMs ?? 30_000} ms`)),
      opts.startTimeoutMs ?? 30_000,
    );
    void exitPromise.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name}: child exited before it was ready. Output:\n${tail}`));
    });
    child.on('message', (raw: unknown) => {
      const m = replySchema.safeParse(raw);
      if (!m.success) return;
      if ('ready' in m.data) {
        clearTimeout(timer);
        resolve();
        return;
      }
      const p = pending.get(m.data.id);
      if (!p) return;
      pending.delete(m.data.id);
      if (m.data.ok) p.resolve(m.data.result);
      else p.reject(new Error(`${name}: ${m.data.error ?? 'failed'}`));
    });
  });
  try {
    await ready;
  } catch (e) {
    if (!exited) child.kill();
    throw e;
  }
  return {
    child,
    runtime: entry.runtime,
    async call<T>(method: string, params: unknown, schema: z.ZodType<T>, timeoutMs = 60_000): Promise<T> {
      if (exited) throw new Error(`${name}: child already exited. Output:\n${tail}`);
      const id = ++nextId;
      const raw = await new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${name}: ${method} got no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        child.send({ rpc: 1, id, method, params });
      });
      const parsed = schema.safeParse(raw);
      if (!parsed.success) throw new Error(`${name}: bad answer to ${method}: ${parsed.error.message}`);
      return parsed.data;
    },
    output: () => tail,
    warnLines: () => warns,
    async stop() {
      if (exited) return;
      // A child that was told to stop exits by itself (and writes its --cpu-prof profile then).
      const t1 = setTimeout(() => child.kill('SIGTERM'), 3000);
      const t2 = setTimeout(() => child.kill('SIGKILL'), 8000);
      await exitPromise;
      clearTimeout(t1);
      clearTimeout(t2);
    },
  };
}
