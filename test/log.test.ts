/** Log redaction of known secret values, and the process-wide last-resort handlers. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, registerSecret, scrubSecrets } from '../src/log.js';
import { installProcessHandlers } from '../src/main.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}

describe('secret values in logs', () => {
  it('a registered value is censored in messages, error messages and stacks; short values are not registered', () => {
    const signing = 'a3f9c2e1b4d5a6f7e8d9c0b1a2f3e4d5';
    const accessKey = 'AK-emulator-demo-9f8e7d6c';
    registerSecret(signing, accessKey, 'short', undefined);
    const { logger, lines } = capture();
    logger.info(`verifying with ${signing}`);
    logger.error({ err: new Error(`service refused key ${accessKey}`) }, 'setup failed');
    const out = lines.join('\n');
    expect(out).not.toContain(signing);
    expect(out).not.toContain(accessKey);
    expect(out).toContain('[REDACTED]');
    expect(out).toContain('setup failed');
    expect(scrubSecrets('a short word')).toBe('a short word');
  });

  it("a workflow step's event token (xwfp-…) is censored as a field and inside a text", () => {
    const token = `xwfp-${'1'.repeat(12)}-${'2'.repeat(12)}-${'a'.repeat(32)}`;
    const { logger, lines } = capture();
    logger.warn({ event: { type: 'function_executed', bot_access_token: token } }, 'step event');
    logger.warn({ err: new Error(`completeError refused ${token}`) }, `retry with ${token}`);
    const out = lines.join('\n');
    expect(out).not.toContain(token);
    expect(out).toContain('[REDACTED]');
  });

  it('an unhandled rejection is logged through the redacting logger, and the handlers can be removed', async () => {
    const secret = 'svc-secret-key-0123456789abcdef';
    registerSecret(secret);
    const { logger, lines } = capture();
    const before = process.listenerCount('unhandledRejection');
    const remove = installProcessHandlers(logger);
    expect(process.listenerCount('unhandledRejection')).toBe(before + 1);
    process.emit('unhandledRejection', new Error(`boom with ${secret}`), Promise.resolve());
    remove();
    expect(process.listenerCount('unhandledRejection')).toBe(before);
    const out = lines.join('\n');
    expect(out).toContain('unhandled promise rejection');
    expect(out).toContain('boom with [REDACTED]');
    expect(out).not.toContain(secret);
  });
});
