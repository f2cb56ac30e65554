import { randomBytes } from 'node:crypto';
import { SocketModeReceiver } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/api/index.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { createSlackApp } from '../../../src/slack/app.js';
import { createStore } from '../../../src/store/index.js';

describe('Socket Mode', () => {
  it('builds a Socket Mode receiver when SLACK_APP_TOKEN is set (not started: no Slack to connect to)', async () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1-socket',
      SLACK_APP_TOKEN: 'xapp-1-A0-socket',
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SLACK_BOT_ID: 'B0SOCK',
      SLACK_BOT_USER_ID: 'U0SOCK',
    });
    const store = await createStore({ url: 'memory://', encryptionKey: config.encryptionKey });
    const api = createApi();
    try {
      const handle = createSlackApp(
        { config, store, api, logger: createLogger({ level: 'silent' }), now: Date.now },
        { register: () => undefined },
      );
      const receiver = (handle.app as unknown as { receiver: unknown }).receiver;
      expect(receiver).toBeInstanceOf(SocketModeReceiver);
      expect(config.mode).toBe('socket');
    } finally {
      await api.close();
      await store.close();
    }
  });
});
