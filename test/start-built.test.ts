/**
 * `npm start` / `npm run start:prod` run the BUILT entry (dist/src/main.js) with plain node: no
 * tsx, no TypeScript at run time. The test compiles src once into a temporary directory (tsc with
 * tsconfig.build.json, emit only: the typecheck is `npm run typecheck`'s job), checks that the
 * emitted code imports only Node built-ins and production dependencies (so `npm ci --omit=dev`
 * after building is enough on a server), then starts it with `node` from a directory holding a
 * minimal .env, waits for /healthz 200 on a loopback port and stops it with SIGTERM (exit 0).
 * Traffic: loopback only (the bot and a fake Slack Web API).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../dev/fakeslack/index.js';
import { buildIntoTemp } from './support/build.js';

const repo = resolve(new URL('..', import.meta.url).pathname);
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

let out: string;
let runDir: string;
let fake: FakeSlack;

beforeAll(async () => {
  out = buildIntoTemp('drm-built-');
  runDir = mkdtempSync(join(tmpdir(), 'drm-built-run-'));
  fake = await FakeSlack.start();
  fake.addWorkspace({ teamId: 'T0BUILT', botToken: 'xoxb-1-built' });
}, 150_000);

afterAll(async () => {
  await fake?.close();
  for (const d of [out, runDir]) if (d) rmSync(d, { recursive: true, force: true });
});

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
}

describe('the built entry', () => {
  it('npm start builds then runs dist/src/main.js; start:prod runs it without building', () => {
    expect(pkg.scripts.start).toBe('npm run build && node dist/src/main.js');
    expect(pkg.scripts['start:prod']).toBe('node dist/src/main.js');
  });

  it('imports only Node built-ins and production dependencies (npm ci --omit=dev is enough to run it)', () => {
    const builtins = new Set(builtinModules);
    const bad = new Set<string>();
    const seen = new Set<string>();
    for (const f of jsFiles(join(out, 'src'))) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(
        /(?:^|[\s;])(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|createRequire\([^)]*\)\(\s*['"]([^'"]+)['"]/gm,
      )) {
        const spec = m[1] ?? m[2] ?? m[3]!;
        if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        seen.add(name);
        if (!(name in pkg.dependencies)) bad.add(`${name} (${f.slice(out.length + 1)})`);
      }
    }
    // The scan sees the imports (static, dynamic and createRequire ones).
    for (const name of ['@slack/bolt', 'zod', 'undici', 'date-fns-tz']) expect(seen).toContain(name);
    expect([...bad], 'the built code imports packages that are not production dependencies').toEqual([]);
  });

  it('runs with plain node from a directory holding a .env: /healthz 200, SIGTERM exits 0; a value cut at # is warned about', async () => {
    writeFileSync(
      join(runDir, '.env'),
      [
        'SLACK_BOT_TOKEN=xoxb-1-built',
        `SLACK_SIGNING_SECRET=${randomBytes(8).toString('hex')}`,
        `SLACK_API_URL=${fake.apiUrl}`,
        `ENCRYPTION_KEY='${randomBytes(32).toString('base64')}'`,
        'STORE_URL=memory://',
        'PORT=0',
        'HOST=127.0.0.1',
        'LOG_LEVEL=info#the rest is cut by npm start',
        '',
      ].join('\n'),
    );
    // Plain node, no loader; only PATH from the parent's environment.
    const child = spawn(process.execPath, [join(out, 'src/main.js')], {
      cwd: runDir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d: Buffer) => {
      log += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      log += d.toString();
    });
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let port: number | undefined;
    const deadline = Date.now() + 20_000;
    while (port === undefined && Date.now() < deadline && child.exitCode === null) {
      const m = /"port":(\d+)[^\n]*Slack app listening/.exec(log);
      if (m) port = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 100));
    }
    try {
      expect(port, log).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exit, log).toBe(0);
    expect(log).toMatch(/Warning: in \S+\.env, LOG_LEVEL has an unquoted value with "#"/);
    expect(log).not.toContain('the rest is cut');
  }, 40_000);

  it('the built store tool (node dist/src/store-tool.js) backs a SQLite store up to a file and restores it', async () => {
    expect(pkg.scripts['store:copy']).toBe('node dist/src/store-tool.js copy');
    expect(pkg.scripts['store:backup']).toBe('node dist/src/store-tool.js backup');
    expect(pkg.scripts['store:restore']).toBe('node dist/src/store-tool.js restore');
    const { createStore } = await import('../src/store/index.js');
    const key = randomBytes(32).toString('base64');
    const src = `sqlite://${join(runDir, 'tool-src.sqlite')}`;
    const s = await createStore({ url: src, encryptionKey: key });
    await s.docs('watches').put('T1', 'w1', { site: 'SIT1' });
    await s.close();
    const tool = (args: string[]) =>
      spawnSync(process.execPath, [join(out, 'src/store-tool.js'), ...args], {
        cwd: runDir,
        env: { PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
      });
    const file = join(runDir, 'tool-backup.jsonl');
    const backup = tool(['backup', '--from', src, '--to', `file:${file}`]);
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stdout).toContain('counts verified');
    const dst = `sqlite://${join(runDir, 'tool-dst.sqlite')}`;
    expect(tool(['restore', '--from', `file:${file}`, '--to', dst]).status).toBe(0);
    // A second restore onto the now non-empty store is refused (exit 1), usage errors exit 2.
    const again = tool(['restore', '--from', `file:${file}`, '--to', dst]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('--force');
    expect(tool(['wipe']).status).toBe(2);
    const d = await createStore({ url: dst, encryptionKey: key });
    expect(await d.docs('watches').get('T1', 'w1')).toEqual({ site: 'SIT1' });
    await d.close();
  }, 30_000);
});
