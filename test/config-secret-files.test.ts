/**
 * Secret settings read from files (NAME_FILE), as Docker and Kubernetes mount secrets.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SECRET_VARIABLES } from '../src/config.js';

const KEY = Buffer.alloc(32, 9).toString('base64');
const dir = mkdtempSync(join(tmpdir(), 'drm-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('secret settings from files', () => {
  it('every secret setting can be given as NAME_FILE (the value without its trailing newline)', () => {
    const c = loadConfig({
      SLACK_BOT_TOKEN_FILE: file('bot', 'xoxb-1-2-fromfile\n'),
      SLACK_SIGNING_SECRET_FILE: file('sign', 'signing-from-file\n'),
      ENCRYPTION_KEY_FILE: file('key', `${KEY}\n`),
      STORE_URL_FILE: file('store', 'redis://:pw@127.0.0.1:6399\n'),
    });
    expect(c.slack.botToken).toBe('xoxb-1-2-fromfile');
    expect(c.slack.signingSecret).toBe('signing-from-file');
    expect(c.encryptionKey).toBe(KEY);
    expect(c.storeUrl).toBe('redis://:pw@127.0.0.1:6399');
    expect(SECRET_VARIABLES).toEqual(
      expect.arrayContaining([
        'SLACK_BOT_TOKEN',
        'SLACK_CLIENT_SECRET',
        'ENCRYPTION_KEY',
        'SERVICE_API_SECRET_KEY',
      ]),
    );
  });

  it('the variable itself wins over its file', () => {
    const c = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1-2-env',
      SLACK_BOT_TOKEN_FILE: file('bot2', 'xoxb-1-2-file'),
      SLACK_SIGNING_SECRET: 's',
      ENCRYPTION_KEY: KEY,
    });
    expect(c.slack.botToken).toBe('xoxb-1-2-env');
  });

  it('a missing or empty file stops the start naming the variable and path, never a value', () => {
    let err: unknown;
    try {
      loadConfig({
        SLACK_BOT_TOKEN_FILE: join(dir, 'nope'),
        SLACK_SIGNING_SECRET_FILE: file('empty', '\n'),
        ENCRYPTION_KEY: KEY,
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const text = (err as ConfigError).message;
    expect(text).toMatch(/SLACK_BOT_TOKEN_FILE.*nope/s);
    expect(text).toMatch(/SLACK_SIGNING_SECRET_FILE.*empty/s);
  });

  it('a setting that is not secret has no _FILE form', () => {
    const c = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1-2-env',
      SLACK_SIGNING_SECRET: 's',
      ENCRYPTION_KEY: KEY,
      PORT_FILE: file('port', '4444'),
    });
    expect(c.port).toBe(3000);
  });

  it('docs/configuration.md names every secret setting that has a _FILE form', () => {
    const doc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    const para = doc.split('**Files, for secrets**')[1]!.split('\n- **')[0]!;
    for (const name of SECRET_VARIABLES) expect(para).toContain(`\`${name}\``);
  });
});
