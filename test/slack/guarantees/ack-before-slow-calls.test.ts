/**
 * view submissions must answer Slack (ack, or response_action) before any Slack API,
 * service or audit-mirror call. Asserted by ORDER on a shared log, not by time: the fakes below
 * answer at once, so a handler that awaits them before acking is visible without any timing.
 *
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../../src/slack/features/index.js';
import { recipientEditModal } from '../../../src/slack/features/recipients/edit-modal.js';
import { setupModal } from '../../../src/slack/features/setup/modal.js';
import { registerInteractions } from '../../../src/slack/kit/interactions/listeners.js';
import { captureApp, fakeClient, memoryDeps, submission } from '../../support/slack-app.js';

/** What happened before the first ack. */
const beforeAck = (log: string[]) => {
  const i = log.indexOf('ack');
  return i < 0 ? log : log.slice(0, i);
};

describe('setup modal submission', () => {
  it('acks before resolving the role with users.info', async () => {
    const deps = await memoryDeps();
    const cap = captureApp();
    registerInteractions(cap.app, deps, [setupModal], registry);
    const log: string[] = [];
    const { body, view, context } = submission('drm_setup', {
      user: 'U0SOMEONE',
      privateMetadata: JSON.stringify({ w: 'T1' }),
    });
    await cap.views.get('drm_setup')!({
      ack: async () => {
        log.push('ack');
      },
      body,
      view,
      context,
      client: fakeClient(log),
    });
    expect(log).toContain('ack');
    expect(beforeAck(log)).not.toContain('users.info');
  });
});

describe('recipient edit modal submission', () => {
  const meta = JSON.stringify({ w: 'T1', s: 'DEMO', r: 7, u: '' });
  const blocks = [
    { block_id: 'name', element: { initial_value: 'good-name' } },
    { block_id: 'description', element: { initial_value: '' } },
  ];
  const values = (name: string) => ({
    name: { value: { type: 'plain_text_input', value: name } },
    description: { value: { type: 'plain_text_input', value: '' } },
  });

  it('a refused edit is answered inline before the audit line is mirrored to the audit channel', async () => {
    const deps = await memoryDeps({ auditChannelId: 'C0AUDIT' });
    const cap = captureApp();
    registerInteractions(cap.app, deps, [recipientEditModal], registry);
    const log: string[] = [];
    const { body, view, context } = submission('wm_recipient_edit', {
      privateMetadata: meta,
      values: values('not a valid name!'),
      blocks,
    });
    await cap.views.get('wm_recipient_edit')!({
      ack: async () => {
        log.push('ack');
      },
      body,
      view,
      context,
      client: fakeClient(log),
    });
    expect(log).toContain('ack');
    expect(beforeAck(log)).not.toContain('chat.postMessage');
  });

  it('does not wait for the Watermarking API before answering Slack', async () => {
    const log: string[] = [];
    const deps = await memoryDeps({
      wm: {
        modifyRecipient: async (_site, dwmId) => {
          log.push('service');
          return { dwmId, updateTime: { raw: '2026-11-22 09:00:00', epochMs: 0 } };
        },
        getRecipient: async (_site, dwmId) => ({
          dwmId,
          name: 'new-name',
          description: '',
          regTime: { raw: '', epochMs: null },
          updateTime: { raw: '', epochMs: null },
        }),
      },
    });
    const cap = captureApp();
    registerInteractions(cap.app, deps, [recipientEditModal], registry);
    const { body, view, context } = submission('wm_recipient_edit', {
      privateMetadata: meta,
      values: values('new-name'),
      blocks,
    });
    await cap.views.get('wm_recipient_edit')!({
      ack: async () => {
        log.push('ack');
      },
      body,
      view,
      context,
      client: fakeClient(log),
    });
    expect(log).toContain('service');
    expect(beforeAck(log)).not.toContain('service');
  });
});
