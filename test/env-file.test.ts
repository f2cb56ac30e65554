/**
 * `.env` loading: the file's variables fill what the environment does not set (the environment
 * wins), a missing file is fine, and the real entry point (`src/main.ts` in a child process, run
 * from a directory holding only a .env) starts from the file's settings alone.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../dev/fakeslack/index.js';
import { unknownSettings } from '../src/config.js';
import { loadEnvFile, valuesCutAtHash } from '../src/env-file.js';

describe('loadEnvFile', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'drm-envfile-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds the file variables the environment lacks; the environment wins; quotes and comments', () => {
    const file = join(dir, '.env');
    writeFileSync(
      file,
      [
        '# a comment',
        'LOG_LEVEL=debug',
        'PORT=4000',
        'export HOST=127.0.0.1',
        'ADMIN_USER_IDS="U0AAA,U0BBB" # trailing comment',
        '',
      ].join('\n'),
    );
    const env: NodeJS.ProcessEnv = { PORT: '3000' };
    const r = loadEnvFile(env, file);
    expect(env).toEqual({
      PORT: '3000',
      LOG_LEVEL: 'debug',
      HOST: '127.0.0.1',
      ADMIN_USER_IDS: 'U0AAA,U0BBB',
    });
    expect(r.path).toBe(file);
    expect(r.loaded.sort()).toEqual(['ADMIN_USER_IDS', 'HOST', 'LOG_LEVEL']);
    expect(r.overridden).toEqual(['PORT']);
  });

  it('an unquoted value with "#" is cut by Node\'s parser: reported by name, never by value; quoted values are kept whole', () => {
    const file = join(dir, '.env-hash');
    writeFileSync(
      file,
      [
        'SLACK_SIGNING_SECRET=ab#cd-secret',
        "SLACK_BOT_TOKEN='xoxb-1#2'",
        'LOG_LEVEL=info # a comment after a space',
        'HOST= # only a comment',
        'PORT=3000',
        '',
      ].join('\n'),
    );
    const env: NodeJS.ProcessEnv = {};
    const r = loadEnvFile(env, file);
    expect(env.SLACK_SIGNING_SECRET).toBe('ab');
    expect(env.SLACK_BOT_TOKEN).toBe('xoxb-1#2');
    expect(r.cutAtHash).toEqual(['SLACK_SIGNING_SECRET', 'LOG_LEVEL']);
    expect(JSON.stringify(r)).not.toContain('cd-secret');
    expect(valuesCutAtHash('A=\'x#y\'\nB="x#y"\nC=x\n')).toEqual([]);
  });

  it('a file saved with a UTF-8 byte-order mark keeps its first setting', () => {
    const file = join(dir, '.env-bom');
    writeFileSync(file, `\uFEFFMETRICS_TOKEN=s3cret-metrics\r\nPORT=4000\r\n`);
    const env: NodeJS.ProcessEnv = {};
    const r = loadEnvFile(env, file);
    expect(env).toEqual({ METRICS_TOKEN: 's3cret-metrics', PORT: '4000' });
    expect(r.loaded.sort()).toEqual(['METRICS_TOKEN', 'PORT']);
  });

  it('names that are no setting are found, with the setting a typo most likely meant', () => {
    expect(unknownSettings(['METRICS_TOKEN', 'PORT', 'NODE_ENV', 'TZ'])).toEqual([]);
    expect(unknownSettings(['METRIC_TOKEN', 'metrics_token', 'SOMETHING_ELSE'])).toEqual([
      { name: 'METRIC_TOKEN', meant: 'METRICS_TOKEN' },
      { name: 'metrics_token', meant: 'METRICS_TOKEN' },
      { name: 'SOMETHING_ELSE' },
    ]);
  });

  it('a missing file changes nothing and is not an error', () => {
    const env: NodeJS.ProcessEnv = { A: '1' };
    expect(loadEnvFile(env, join(dir, 'absent.env'))).toEqual({ loaded: [], overridden: [], cutAtHash: [] });
    expect(env).toEqual({ A: '1' });
  });
});

describe('npm start with a .env file', () => {
  let fake: FakeSlack;
  let dir: string;
  beforeAll(async () => {
    fake = await FakeSlack.start();
    fake.addWorkspace({ teamId: 'T0ENVF', botToken: 'xoxb-1-envfile' });
    dir = mkdtempSync(join(tmpdir(), 'drm-envfile-main-'));
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts from the settings in ./.env alone (saved with a byte-order mark), warns of a name that is no setting, serves /healthz, stops on SIGTERM', async () => {
    writeFileSync(
      join(dir, '.env'),
      // The byte-order mark a Windows editor writes: the first setting must still count.
      '\uFEFF' +
        [
          'SLACK_BOT_TOKEN=xoxb-1-envfile',
          'METRIC_TOKEN=typo-secret-value',
          `SLACK_SIGNING_SECRET=${randomBytes(8).toString('hex')}`,
          `SLACK_API_URL=${fake.apiUrl}`,
          `ENCRYPTION_KEY=${randomBytes(32).toString('base64')}`,
          'STORE_URL=memory://',
          'PORT=0',
          'HOST=127.0.0.1',
          'LOG_LEVEL=info',
          '',
        ].join('\n'),
    );
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    // Run from the directory holding the .env: only PATH comes from the parent's environment.
    const child = spawn(process.execPath, ['--import', tsx, resolve('src/main.ts')], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let port: number | undefined;
    const deadline = Date.now() + 15_000;
    while (port === undefined && Date.now() < deadline && child.exitCode === null) {
      const m = /"port":(\d+)[^\n]*Slack app listening/.exec(out);
      if (m) port = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 100));
    }
    try {
      expect(port, out).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(out).toMatch(/METRIC_TOKEN \(did you mean METRICS_TOKEN\?\) is not a setting/);
      expect(out).not.toContain('typo-secret-value');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exit).toBe(0);
  });
});
