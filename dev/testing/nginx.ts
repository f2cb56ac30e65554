/**
 * nginx for the fault suite: the shipped load-balancer config (deploy/nginx.conf) rendered for
 * loopback and run as a child process (not a daemon) with every path it writes under a temporary
 * prefix. Only what differs on loopback is rewritten: the `server` lines point at the given
 * replica ports (IP literals, so no `resolve`), the listen address is 127.0.0.1:<free port>, the
 * access log and temp directories live in the prefix. Everything else (timeouts, retries,
 * routes) is the shipped file's.
 *
 *   const lb = await startNginx([p1, p2, p3]);   // null when nginx is not installed
 *   lb.port; lb.accessLog(); await lb.stop();
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freeLoopbackPort, waitForPort } from './ports.js';

const REPO = resolve(new URL('../..', import.meta.url).pathname);
export const NGINX_CONF = join(REPO, 'deploy/nginx.conf');

/** The nginx binary (PATH, then /usr/sbin, where Debian puts it), or undefined. */
export function findNginx(): string | undefined {
  for (const c of ['nginx', '/usr/sbin/nginx', '/usr/local/sbin/nginx']) {
    const r = spawnSync(c, ['-v'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return undefined;
}

/** deploy/nginx.conf with its replicas at 127.0.0.1:<ports>, listening on 127.0.0.1:<listen>. */
export function renderNginxConf(
  source: string,
  o: { ports: number[]; listen: number; prefix: string },
): string {
  const servers = [...source.matchAll(/^(\s*)server [a-z0-9-]+:\d+ ([^;\n]*?)\s*resolve;$/gm)];
  if (servers.length === 0) throw new Error('deploy/nginx.conf: no `server host:port ... resolve;` lines');
  const indent = servers[0]![1]!;
  const params = servers[0]![2]!;
  let first = true;
  let out = source.replace(/^\s*server [a-z0-9-]+:\d+ [^;\n]*resolve;\n/gm, () => {
    if (!first) return '';
    first = false;
    return o.ports.map((p) => `${indent}server 127.0.0.1:${p} ${params};\n`).join('');
  });
  const must = (re: RegExp, by: string) => {
    if (!re.test(out)) throw new Error(`deploy/nginx.conf: ${re} not found`);
    out = out.replace(re, by);
  };
  must(/^(\s*)listen \d+;$/m, `$1listen 127.0.0.1:${o.listen};`);
  must(/^(\s*)access_log \/dev\/stdout (\w+);$/m, `$1access_log ${join(o.prefix, 'access.log')} $2;`);
  // Temp directories in the prefix (the compiled-in ones may not exist or be writable here).
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${join(o.prefix, `${t}_temp`)};`)
    .join('\n');
  must(/^http \{$/m, `http {\n${temps}`);
  return out;
}

export interface NginxHandle {
  port: number;
  /** The access log so far (one line per request, with `upstream=<addr>`). */
  accessLog(): string;
  /** The error log so far. */
  errorLog(): string;
  stop(): Promise<void>;
}

/** Start nginx in front of 127.0.0.1:<ports>; null when nginx is not installed. */
export async function startNginx(ports: number[]): Promise<NginxHandle | null> {
  const bin = findNginx();
  if (!bin) return null;
  const prefix = mkdtempSync(join(tmpdir(), 'drm-nginx-'));
  const listen = await freeLoopbackPort();
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, renderNginxConf(readFileSync(NGINX_CONF, 'utf8'), { ports, listen, prefix }));
  const errorLog = join(prefix, 'error.log');
  const args = [
    '-p',
    `${prefix}/`,
    '-c',
    conf,
    '-e',
    errorLog,
    '-g',
    `daemon off; pid ${join(prefix, 'nginx.pid')};`,
  ];
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4096);
  });
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  try {
    await waitForPort(listen, 10_000, child, 'nginx');
  } catch (e) {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(prefix, { recursive: true, force: true });
    throw new Error(`${(e as Error).message}: ${stderr} ${read(errorLog).slice(-2000)}`);
  }
  return {
    port: listen,
    accessLog: () => read(join(prefix, 'access.log')),
    errorLog: () => read(errorLog),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        // QUIT: graceful; KILL after 3 s.
        child.kill('SIGQUIT');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
