/**
 * What the Dockerfile and the compose file promise, checked on their text (`npm run image:verify`
 * builds and runs the image itself; CI runs it): one pinned Node 24 base for every stage, a runtime
 * stage without npm/node-gyp, sqlite3 build leftovers or sqlite3's install-time packages that keeps its health check, non-root user
 * and /data volume; a build context without .env, dev or test files; an optional .env in compose.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const dockerfile = read('Dockerfile');
const stages = dockerfile.split(/^FROM /m).slice(1);

describe('Dockerfile', () => {
  it('every stage uses the same base, pinned to a Node 24 minor on bookworm-slim', () => {
    const bases = stages.map((s) => s.split(/\s/)[0]);
    expect(bases.length).toBe(2);
    for (const b of bases) expect(b).toMatch(/^node:24\.\d+-bookworm-slim$/);
    expect(new Set(bases).size).toBe(1);
  });

  it('the build stage drops devDependencies, node-gyp (optional) and sqlite3 build leftovers', () => {
    const build = stages[0]!;
    expect(build).toMatch(/npm prune --omit=dev --omit=optional/);
    expect(build).toMatch(/rm -rf build deps src/);
    expect(build).toContain('build/Release/node_sqlite3.node');
  });

  it("the build stage drops sqlite3's install-time packages (prebuild-install, tar, node-addon-api) and checks it still loads", () => {
    const build = stages[0]!;
    // The lockfile's sqlite3 entry loses those edges, then a second prune lets npm remove them
    // and whatever only they needed.
    const edit =
      /l\.packages\['node_modules\/sqlite3'\]\.dependencies;for\(const n of \[([^\]]*)\]\)delete d\[n\]/.exec(
        build,
      );
    expect(edit, 'the lockfile edit of sqlite3 dependencies').not.toBeNull();
    expect(
      edit![1]!
        .split(',')
        .map((x) => x.trim().replace(/'/g, ''))
        .sort(),
    ).toEqual(['node-addon-api', 'prebuild-install', 'tar']);
    const afterEdit = build.slice(build.indexOf(edit![0]));
    expect(afterEdit).toMatch(/npm prune --omit=dev --omit=optional/);
    expect(afterEdit).toMatch(/node -e "new \(require\('sqlite3'\)\.Database\)\(':memory:'\)\.close\(\)"/);
    // Only install-time packages: sqlite3 loads its module through `bindings`, which stays.
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dependencies?: Record<string, string> }>;
    };
    const deps = Object.keys(lock.packages['node_modules/sqlite3']?.dependencies ?? {}).sort();
    expect(deps, 'sqlite3 has new dependencies: check which it needs at run time').toEqual([
      'bindings',
      'node-addon-api',
      'prebuild-install',
      'tar',
    ]);
    expect(read('node_modules/sqlite3/lib/sqlite3-binding.js')).toMatch(/require\('bindings'\)/);
  });

  it('image:verify checks the runtime image has none of those packages', () => {
    const verify = read('scripts/image-verify.sh');
    for (const p of ['prebuild-install', 'node-addon-api', 'tar', 'tar-fs', 'simple-get', 'rc'])
      expect(verify).toMatch(new RegExp(`for p in [^\\n]*\\b${p}\\b`));
  });

  it('the runtime stage: no npm, health check, non-root, /data volume, only dist and production modules', () => {
    const runtime = stages[1]!;
    expect(runtime).toMatch(
      /rm -rf \/usr\/local\/lib\/node_modules \/usr\/local\/bin\/npm \/usr\/local\/bin\/npx/,
    );
    expect(runtime).toMatch(/^HEALTHCHECK .*\n\s+CMD \["node", "-e", ".*\/healthz/m);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^VOLUME \["\/data"\]$/m);
    const copies = [...runtime.matchAll(/^COPY (.*)$/gm)].map((m) => m[1]!);
    for (const c of copies) expect(c).not.toMatch(/\b(dev|test|bench|scripts|src)\b|\.env/);
  });

  it('the build context leaves out .env files, dev tooling and tests', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const p of ['.env*', 'dev', 'test', 'bench', 'node_modules']) expect(ignored).toContain(p);
  });
});

describe('docker-compose.yml', () => {
  it('reads .env when it exists and starts without one (the bot then names the missing settings)', () => {
    const compose = read('docker-compose.yml');
    const envFiles = [...compose.matchAll(/^\s+env_file:(.*)$/gm)];
    expect(envFiles.length).toBeGreaterThan(0);
    for (const m of envFiles) expect(m[1]!.trim()).toBe('');
    expect(compose).toMatch(/env_file:\n\s+- path: \.env\n\s+required: false\n/);
  });

  const compose = read('docker-compose.yml');
  const services = compose.slice(compose.indexOf('\nservices:\n'), compose.indexOf('\nvolumes:\n'));
  const blocks = services.split(/\n(?= {2}[a-z0-9-]+:)/).filter((b) => /^ {2}[a-z0-9-]+:/.test(b));
  const byName = new Map(blocks.map((b) => [/^ {2}([a-z0-9-]+):/.exec(b)![1]!, b]));

  it("runs one bot and Redis by default; the extra replicas (and HTTP mode's load balancer) are profiles without a bot port", () => {
    expect([...byName.keys()]).toEqual(['redis', 'bot', 'bot-2', 'bot-3', 'lb']);
    for (const name of ['redis', 'bot']) expect(byName.get(name), name).not.toContain('profiles:');
    expect(byName.get('bot')).toMatch(/ports:\n\s+- "3000:3000"/);
    for (const name of ['bot-2', 'bot-3']) {
      expect(byName.get(name), name).toContain('profiles: [replicas, http-replicas]');
      expect(byName.get(name), name).toContain('ports: !reset []');
    }
    expect(byName.get('lb')).toContain('profiles: [http-replicas]');
  });

  it("HTTP mode's load balancer runs the shipped nginx.conf in front of every bot of its profile", () => {
    const lb = byName.get('lb')!;
    expect(lb).toContain('- ./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    // nginx >= 1.27.3: `resolve` in an upstream block.
    const [, major, minor] = /image: nginx:(\d+)\.(\d+)/.exec(lb) ?? [];
    expect(Number(major) * 100 + Number(minor)).toBeGreaterThanOrEqual(128);
    const conf = read('deploy/nginx.conf');
    const servers = [...conf.matchAll(/^\s*server ([a-z0-9-]+):(\d+) [^;]*\bresolve;$/gm)];
    const bots = [...byName.keys()].filter((n) => /^bot(-\d+)?$/.test(n));
    expect(servers.map((m) => m[1])).toEqual(bots);
    const port = /PORT: "(\d+)"/.exec(byName.get('bot')!)![1];
    for (const m of servers) expect(m[2]).toBe(port);
    for (const b of bots) expect(lb).toMatch(new RegExp(`${b}:\\n\\s+condition: service_healthy`));
    const listen = /^\s*listen (\d+);$/m.exec(conf)![1];
    expect(lb).toMatch(new RegExp(`ports:\\n\\s+- "\\d+:${listen}"`));
    // Only the Slack routes go through; a replica that was sent a request is never sent it again.
    expect(conf).toMatch(/location \/slack\/ \{[^}]*proxy_pass http:\/\/drm_chatops;/);
    expect(conf).toMatch(/proxy_next_upstream error timeout;/);
    expect(conf).not.toMatch(/non_idempotent/);
  });
});
