/**
 * What the Dockerfile and the compose file promise, checked on their text (`npm run image:verify`
 * builds and runs the image itself; CI runs it): one pinned Node 24 base for every stage, a runtime
 * stage without npm/node-gyp or sqlite3 build leftovers that keeps its health check, non-root user
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
});
