import { describe, expect, it } from 'vitest';
import type { SetupStatus } from '../../../src/ops/setup.js';
import {
  setupFormView,
  setupInlineErrors,
  setupStatusMessage,
  setupSuccessView,
  verifyingView,
} from '../../../src/slack/features/setup/render.js';
import { LIMITS } from '../../../src/slack/kit/blocks.js';

const status: SetupStatus = {
  configured: true,
  source: 'store',
  readOnly: false,
  siteIds: ['AB12', 'CD34'],
  defaultSiteId: 'AB12',
  watermarking: {
    accountId: 'acc',
    accessKey: '\u2022\u2022\u2022\u2022wxyz',
    baseUrl: 'https://wm.example.com',
  },
  service: {
    accountId: 'svc',
    accountSeq: '1024',
    secretKey: '\u2022\u2022\u2022\u2022abcd',
    baseUrl: 'https://api.example.com',
  },
  verifiedAt: '2026-01-02T03:04:05.000Z',
  savedBy: 'U1',
};

describe('setup views', () => {
  it('form, with failure, keeps non-secrets and never pre-fills secrets', () => {
    const v = setupFormView({
      workspace: 'T1',
      values: { siteIds: 'AB12', wmAccountId: 'acc', wmAccessKey: 'SHOULD-NOT-APPEAR' },
      defaults: { wmBaseUrl: 'https://wm.example.com' },
      savedSecrets: { wmAccessKey: '\u2022\u2022\u2022\u2022wxyz' },
      failure: ['• The Watermarking API refused the account id or key.'],
      secretsDiscarded: true,
    });
    expect(JSON.stringify(v)).not.toContain('SHOULD-NOT-APPEAR');
    expect(JSON.stringify(v)).toContain('enter them again');
    expect(v.title.text.length).toBeLessThanOrEqual(LIMITS.modalTitle);
    expect(v).toMatchSnapshot();
  });
  it('inline errors are keyed by block id', () => {
    expect(setupInlineErrors({ siteIds: 'bad', svcAccountSeq: 'nope' })).toEqual({
      site_ids: 'bad',
      svc_account_seq: 'nope',
    });
  });
  it('success with a note (a 403 on the site list) shows the note, escaped', () => {
    const v = setupSuccessView(status, 'UTC', ['The site list is not permitted <!channel>.']);
    const text = JSON.stringify(v.blocks);
    expect(text).toContain('Verified and saved.');
    expect(text).toContain('The site list is not permitted &lt;!channel&gt;.');
  });
  it('verifying, success and status', () => {
    expect(verifyingView()).toMatchSnapshot();
    expect(setupSuccessView(status, 'Asia/Seoul')).toMatchSnapshot();
    const member = setupStatusMessage(status, 'UTC', false);
    expect(JSON.stringify(member)).not.toContain('wxyz');
    expect(setupStatusMessage(status, 'UTC', true)).toMatchSnapshot();
    expect(
      setupStatusMessage({ configured: false, readOnly: false, siteIds: [] }, 'UTC', true).text,
    ).toContain('not set up');
  });
});
