/**
 * Releases: the hand-kept CHANGELOG.md has an entry for the version in package.json (with what
 * changed for users and operators, migrations, new settings, what was removed), every setting it
 * names exists, and the image is labelled and tagged with that version.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../src/config.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string };
const lock = JSON.parse(read('package-lock.json')) as {
  version: string;
  packages: { '': { version: string } };
};
const changelog = read('CHANGELOG.md');

function entry(version: string): string {
  const parts = changelog.split(/^## /m);
  const e = parts.find((p) => p.startsWith(`[${version}]`));
  if (!e) throw new Error(`CHANGELOG.md has no "## [${version}]" entry`);
  return e;
}

describe('release', () => {
  it('package.json and the lockfile carry the same version', () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.version).toBe(pkg.version);
    expect(lock.packages[''].version).toBe(pkg.version);
  });

  it("CHANGELOG.md's newest entry is package.json's version, with each part a release must say", () => {
    const newest = /^## \[([^\]]+)\]/m.exec(changelog)?.[1];
    expect(newest).toBe(pkg.version);
    const e = entry(pkg.version);
    for (const part of [
      '### For users',
      '### For operators',
      '### New settings',
      '### Migrations',
      '### Removed',
    ]) {
      expect(e).toContain(part);
    }
  });

  it('every setting the entry lists as new exists in src/config.ts', () => {
    const e = entry(pkg.version);
    const table = e.split('### New settings')[1]!.split('###')[0]!;
    const names = [...table.matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(0);
    const known = new Set(VARIABLES.map((v) => v.name));
    expect(names.filter((n) => !known.has(n))).toEqual([]);
  });

  it('the image is labelled and tagged with the version (Dockerfile, image:verify)', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^ARG APP_VERSION=/m);
    expect(dockerfile).toContain(`org.opencontainers.image.version="\${APP_VERSION}"`);
    const verify = read('scripts/image-verify.sh');
    expect(verify).toContain(`APP_VERSION="$(node -p "require('./package.json').version")"`);
    expect(verify).toContain('--build-arg APP_VERSION="$APP_VERSION"');
    expect(verify).toContain('-t "localhost/drm-chatops:$APP_VERSION"');
    expect(verify).toContain('npm sbom --omit=dev');
  });

  it('docs/operations.md says how to upgrade', () => {
    const ops = read('docs/operations.md');
    expect(ops).toMatch(/^## Upgrading$/m);
    expect(ops).toContain('CHANGELOG.md');
  });
});
