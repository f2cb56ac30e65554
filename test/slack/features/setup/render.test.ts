import { describe, expect, it } from 'vitest';
import type { SetupStatus } from '../../../../src/ops/setup.js';
import {
  setupFormView,
  setupInlineErrors,
  setupStatusMessage,
  setupSuccessView,
  verifyingView,
} from '../../../../src/slack/features/setup/render.js';
import { LIMITS } from '../../../../src/slack/kit/blocks/blocks.js';

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

describe('the setup form and the configured service URLs', () => {
  const blockIds = (v: ReturnType<typeof setupFormView>) =>
    (v.blocks as Array<{ block_id?: string }>).map((b) => b.block_id);
  const inputs = (v: ReturnType<typeof setupFormView>) =>
    (v.blocks as Array<{ type: string; block_id?: string; optional?: boolean }>).filter(
      (b) => b.type === 'input',
    );

  it('shows a configured URL as text when no other host is allowed (no field that could only be refused)', () => {
    const v = setupFormView({
      workspace: 'T1',
      defaults: {
        wmBaseUrl: 'https://wm.example.com/wm',
        svcBaseUrl: 'https://api.example.com',
        allowed: ['https://api.example.com:443', 'https://wm.example.com:443'],
      },
    });
    expect(blockIds(v)).not.toContain('wm_base_url');
    expect(blockIds(v)).not.toContain('svc_base_url');
    const text = JSON.stringify(v);
    expect(text).toContain('Watermarking API URL: https://wm.example.com/wm (`DWM_BASE_URL`');
    expect(text).toContain('Service API URL: https://api.example.com (`SERVICE_API_BASE_URL`');
  });

  it('says who sets a URL that is not configured, instead of an optional field that refuses blank', () => {
    const v = setupFormView({ workspace: 'T1', defaults: { allowed: [] } });
    expect(blockIds(v)).not.toContain('wm_base_url');
    const text = JSON.stringify(v);
    expect(text).toContain('whoever runs the bot sets `DWM_BASE_URL`');
    expect(text).toContain('whoever runs the bot sets `SERVICE_API_BASE_URL`');
    // Every optional field shown accepts blank: none of them is a URL.
    for (const b of inputs(v)) expect(b.block_id).not.toMatch(/base_url/);
  });

  it('offers a URL field, filled with the configured URL, only when the operator allows other hosts', () => {
    const v = setupFormView({
      workspace: 'T1',
      defaults: {
        wmBaseUrl: 'https://wm.example.com',
        allowed: ['https://wm.example.com:443', 'https://wm2.example.com:443'],
      },
    });
    const field = inputs(v).find((b) => b.block_id === 'wm_base_url') as unknown as {
      element: { initial_value?: string };
      hint?: { text: string };
    };
    expect(field.element.initial_value).toBe('https://wm.example.com');
    expect(field.hint?.text).toContain('https://wm2.example.com');
  });

  it("moves the error of a URL the form showed as text under that part's account id", () => {
    const present = new Set(['site_ids', 'wm_account_id', 'wm_access_key', 'svc_account_id']);
    expect(setupInlineErrors({ wmBaseUrl: 'Not set: DWM_BASE_URL.' }, present)).toEqual({
      wm_account_id: 'Not set: DWM_BASE_URL.',
    });
    expect(
      setupInlineErrors({ svcBaseUrl: 'Not allowed: x.', svcAccountId: 'Give the id.' }, present),
    ).toEqual({
      svc_account_id: 'Not allowed: x. Give the id.',
    });
  });
});
