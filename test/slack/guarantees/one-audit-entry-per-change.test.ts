/**
 * one change, one audit entry. The DRM settings submission audits through `audited()` and
 * then appends a second `settings.update` entry itself, so the audit log (and the audit channel,
 * one line each) shows every settings change twice.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../../src/slack/features/index.js';
import { settingsModal } from '../../../src/slack/features/settings/modal.js';
import { registerInteractions } from '../../../src/slack/kit/interactions/listeners.js';
import { captureApp, fakeClient, memoryDeps, submission } from '../../support/slack-app.js';

describe('DRM settings submission', () => {
  it('writes one audit entry per saved change', async () => {
    const sent: unknown[] = [];
    const deps = await memoryDeps({
      adminUserIds: ['U1'],
      auditChannelId: 'C0AUDIT',
      svc: {
        updateSettings: async (_site, update) => {
          sent.push(update);
        },
      },
    });
    const cap = captureApp();
    registerInteractions(cap.app, deps, [settingsModal], registry);
    const log: string[] = [];
    const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
    const { body, view, context } = submission('svc_settings_edit', {
      user: 'U1',
      privateMetadata: JSON.stringify({ w: 'T1', s: 'DEMO' }),
      values: {
        svc_set_license_url: text('https://new.example/license'),
        svc_set_package_url: text(''),
        svc_set_token_duration: text('7200'),
      },
    });
    await cap.views.get('svc_settings_edit')!({
      ack: async () => {
        log.push('ack');
      },
      body,
      view,
      context,
      client: fakeClient(log),
    });
    expect(sent).toHaveLength(1);
    const entries = (await deps.store.audit.list('T1')).filter((e) => e.action === 'settings.update');
    expect(entries).toHaveLength(1);
    expect(log.filter((m) => m === 'chat.postMessage')).toHaveLength(1);
  });
});
