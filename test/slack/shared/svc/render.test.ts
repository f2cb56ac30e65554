/**
 * Snapshot tests of the `/drm` renderers (pure), plus hostile strings (`<!channel>`, `*bold*`,
 * 10,000-character names) staying escaped and every message/view within Block Kit limits as the
 * fake Slack checks them.
 */
import { describe, expect, it } from 'vitest';
import { validateMessageBlocks, validateView } from '../../../../dev/fakeslack/index.js';
import { loadLicenseErrorCodes, setLicenseErrorCodes } from '../../../../src/api/error-codes.js';
import type { LicenseRecord, PackagingRecord, TimeValue } from '../../../../src/api/types.js';
import { toMemberView } from '../../../../src/ops/service/members.js';
import { allowedActions, type PlanState, toRequestView } from '../../../../src/ops/service/plan.js';
import { maskSettings } from '../../../../src/ops/service/settings.js';
import { delta } from '../../../../src/ops/service/stats.js';
import {
  dataTableMessage,
  exportDoneMessage,
  exportProgressMessage,
  packagingMessage,
} from '../../../../src/slack/features/drm-data/render.js';
import { deltaText, statsMessage } from '../../../../src/slack/features/drm-data/render-stats.js';
import { fpsCertDoneView, fpsCertModal } from '../../../../src/slack/features/fpscert/render.js';
import {
  groupModal,
  memberAddedMessage,
  membersMessage,
} from '../../../../src/slack/features/members/render.js';
import { planBanner, planCard, planRequestModal } from '../../../../src/slack/features/plan/render.js';
import { planValue } from '../../../../src/slack/features/plan/values.js';
import { settingsEditModal, settingsMessage } from '../../../../src/slack/features/settings/render.js';
import {
  siteRequestedMessage,
  siteRequestsMessage,
  sitesMessage,
} from '../../../../src/slack/features/sites/render.js';
import type { Message, ModalView } from '../../../../src/slack/kit/blocks/blocks.js';
import { codeTable, decodeValue, encodeValue } from '../../../../src/slack/shared/svc/values.js';

const HOSTILE = `<!channel> *bold* <@U123> & \`tick\` ${'x'.repeat(10_000)}`;
const AT = Date.UTC(2026, 10, 22, 5, 6, 7);
const tv = (ms: number): TimeValue => ({ raw: new Date(ms).toISOString(), epochMs: ms });
const meta = {
  workspace: 'T0TEST0A',
  userId: 'U0ADMINA',
  atMs: AT,
  refId: 'abcd1234',
  timeZone: 'Asia/Seoul',
};

function valid(m: Message): void {
  expect(validateMessageBlocks(m.blocks)).toEqual([]);
  expect(m.text.length).toBeLessThanOrEqual(40_000);
}
function validV(v: ModalView): void {
  expect(validateView(v)).toEqual([]);
}
/** No raw special mention or link from data survives in mrkdwn. */
function safe(m: unknown): void {
  // Button values are state, never rendered; plain_text is shown as typed (Slack parses no
  // mention or link in it): only the mrkdwn Slack shows is checked.
  const s = JSON.stringify(m, function (k, v) {
    if (k === 'value' && typeof v === 'string') return '';
    if (k === 'text' && typeof v === 'string' && (this as { type?: string }).type === 'plain_text') return '';
    return v;
  });
  expect(s).not.toContain('<!channel>');
  expect(s).not.toContain('<@U123>');
}

function planState(pending: boolean, message = 'Please extend'): PlanState {
  const latest = toRequestView({
    siteId: 'DEMO',
    requestId: 'REQ-1',
    type: 'SM003',
    message,
    status: pending ? 'ST001' : 'ST003',
    registeredBy: 'demo-service',
    regTime: tv(AT - 86_400_000),
    updateTime: tv(AT),
  });
  return {
    siteId: 'DEMO',
    serviceCode: 'PD001',
    serviceLabel: 'DRM',
    latest,
    actions: allowedActions(latest, { productStatus: 'SE000' }),
  };
}

describe('plan', () => {
  it('pending card: only Cancel, danger with a confirm; snapshot', () => {
    const m = planCard(planState(true), { ...meta, audience: 'admin' });
    valid(m);
    expect(m).toMatchSnapshot();
    const ids = JSON.stringify(m.blocks);
    expect(ids).toContain('svc_plan_cancel');
    expect(ids).not.toContain('svc_plan_request_trial');
  });
  it('settled card: trial first (primary), suspension last (danger); value carries no secret', () => {
    const m = planCard(planState(false), { ...meta, audience: 'admin' });
    valid(m);
    const actionsBlock = m.blocks!.find((b) => b.type === 'actions') as {
      elements: Array<{ action_id: string; style?: string; value?: string }>;
    };
    expect(actionsBlock.elements.map((e) => e.action_id)).toEqual([
      'svc_plan_request_trial',
      'svc_plan_request_suspend',
    ]);
    expect(actionsBlock.elements[0]!.style).toBe('primary');
    expect(actionsBlock.elements[1]!.style).toBe('danger');
    expect(decodeValue(planValue, actionsBlock.elements[0]!.value)).toEqual({
      w: 'T0TEST0A',
      s: 'DEMO',
      v: 'PD001',
      a: 'trial',
    });
  });
  it('hostile message stays escaped and within limits', () => {
    const m = planCard(planState(false, HOSTILE), { ...meta, banner: 'done', audience: 'admin' });
    valid(m);
    safe(m);
    expect(JSON.stringify(m)).toContain('&lt;!channel&gt;');
  });
  it('a latest request that could not be read: the card says so with the code and text (escaped), the requests stay offered', () => {
    const unread = { code: 'NF-404', message: `No request <@U123> ${HOSTILE}` };
    const m = planCard(
      {
        siteId: 'AB12',
        serviceCode: 'PD001',
        serviceLabel: 'DRM',
        latest: null,
        unreadLatest: unread,
        actions: allowedActions(null, { unread }),
      },
      { ...meta, audience: 'admin' },
    );
    valid(m);
    safe(m);
    const text = JSON.stringify(m.blocks);
    expect(text).toContain('No earlier request could be read (NF-404: No request &lt;@U123&gt;');
    expect(text).not.toContain('No plan request for');
    expect(text).toContain('svc_plan_request_trial');
    expect(text).not.toContain('svc_plan_cancel');
  });
  it('a request sent without a readable earlier one: the banner says why', () => {
    const r = {
      ...planState(true).latest!,
      earlierUnread: { code: 'HTTP 403', message: 'not permitted for this account' },
    };
    expect(planBanner('trial', 'U0ADMINA', r)).toContain(
      'No earlier request could be read (HTTP 403: not permitted for this account).',
    );
  });
  it('request modal', () => {
    const v = planRequestModal('suspend', 'DEMO', 'PD002', '{"w":"T"}');
    validV(v);
    expect(v).toMatchSnapshot();
  });
});

describe('sites', () => {
  it('problems first, snapshot, hostile names', () => {
    const sites = [
      {
        siteId: 'AA00',
        name: 'Good',
        products: [
          {
            serviceCode: 'PD001' as const,
            label: 'DRM',
            status: 'SE000' as const,
            statusLabel: 'In service',
            inService: true,
          },
        ],
      },
      {
        siteId: 'BB00',
        name: HOSTILE,
        products: [
          {
            serviceCode: 'PD002' as const,
            label: 'FWM',
            status: 'SE001' as const,
            statusLabel: 'Suspended',
            inService: false,
          },
        ],
      },
    ];
    const m = sitesMessage(sites, { ...meta, defaultSiteId: 'AA00' });
    valid(m);
    safe(m);
    const s = JSON.stringify(m.blocks);
    expect(s.indexOf('BB00')).toBeLessThan(s.indexOf('AA00'));
    const many = sitesMessage(
      Array.from({ length: 60 }, (_, i) => ({
        siteId: `S${String(i).padStart(3, '0')}`,
        name: 'n',
        products: [],
      })),
      meta,
    );
    valid(many);
    expect(JSON.stringify(many)).toContain('40 more sites');
    expect(sitesMessage(sites.slice(0, 1), meta)).toMatchSnapshot();
  });
  it('requests and requested', () => {
    const page = {
      items: [
        {
          seq: 7,
          accountId: 'acc',
          siteId: '',
          serviceName: HOSTILE,
          status: 'requested',
          regTime: tv(AT),
          updateTime: tv(AT),
        },
      ],
      page: 2,
      pageSize: 25,
      hasMore: true,
    };
    const m = siteRequestsMessage(page, { status: 'requested' }, meta);
    valid(m);
    safe(m);
    expect(JSON.stringify(m)).toContain('svc_site_requests_page_prev');
    // A status word the bot does not know is shown as the service sent it, not cut or mapped.
    const unknown = siteRequestsMessage(
      { ...page, items: [{ ...page.items[0]!, serviceName: 'Kids', status: 'WAITING_REVIEW' }] },
      {},
      meta,
    );
    expect(JSON.stringify(unknown)).toContain('WAITING_REVIEW');
    const r = siteRequestedMessage({ seq: 9, name: HOSTILE }, meta);
    valid(r);
    safe(r);
  });
});

describe('DRM data', () => {
  const lic = (i: number, status: 'success' | 'fail', cid = `cid-${i}`): LicenseRecord => ({
    cid,
    status,
    errorCode: status === 'fail' ? 'E1' : '0000',
    drmType: 'Widevine',
    userId: `user${i}`,
    deviceId: `dev${i}`,
    deviceModel: 'Pixel',
    licenseType: 'token',
    platformName: 'Android',
    regTime: tv(AT - i * 60_000),
  });
  it('licenses: failures first; snapshot', () => {
    const page = {
      items: [lic(1, 'success'), lic(2, 'fail'), lic(3, 'success')],
      page: 1,
      pageSize: 25,
      hasMore: false,
    };
    const m = dataTableMessage('licenses', page, { status: undefined }, { ...meta, siteId: 'DEMO' });
    valid(m);
    expect(m).toMatchSnapshot();
    const table = JSON.stringify(m.blocks);
    expect(table.indexOf('FAIL')).toBeLessThan(table.indexOf(' ok'));
  });
  it('license error codes get words only from LICENSE_ERROR_CODES (none built in: the spec gives none)', () => {
    const page = { items: [lic(2, 'fail'), lic(3, 'success')], page: 1, pageSize: 25, hasMore: false };
    const render = () =>
      JSON.stringify(dataTableMessage('licenses', page, {}, { ...meta, siteId: 'DEMO' }).blocks);
    try {
      setLicenseErrorCodes(loadLicenseErrorCodes(''));
      expect(render()).not.toContain('Error codes:');
      setLicenseErrorCodes(loadLicenseErrorCodes('{"e1":"the device is not allowed by the license policy"}'));
      expect(render()).toContain('Error codes: `E1`: the device is not allowed by the license policy');
    } finally {
      setLicenseErrorCodes(loadLicenseErrorCodes(''));
    }
    expect(() => loadLicenseErrorCodes('{"E1": 3}')).toThrow(/LICENSE_ERROR_CODES must be/);
  });
  it('the zone: "your" for the reader alone, by name when shared; the buttons carry the table\'s zone', () => {
    const page = {
      items: [lic(1, 'success')],
      page: 1,
      pageSize: 25,
      hasMore: true,
      dates: { from: '2026-11-01', to: '2026-11-07', zone: 'Asia/Seoul', exact: true },
    };
    const own = JSON.stringify(
      dataTableMessage('licenses', page, {}, { ...meta, siteId: 'DEMO', timeZone: 'Asia/Seoul' }),
    );
    expect(own).toContain('in your time zone (Asia/Seoul)');
    expect(own).toContain('Times in your zone.');
    const shared = dataTableMessage(
      'licenses',
      page,
      {},
      { ...meta, siteId: 'DEMO', timeZone: 'Asia/Seoul', shared: true },
    );
    valid(shared);
    const t = JSON.stringify(shared);
    expect(t).not.toMatch(/\byour (time )?zone\b/);
    expect(t).toContain('from 2026-11-01 to 2026-11-07, in the Asia/Seoul time zone.');
    expect(t).toContain('Times in the Asia/Seoul time zone.');
    for (const b of JSON.parse(t).blocks.flatMap(
      (x: { elements?: Array<{ value?: string }> }) => x.elements ?? [],
    ))
      if (b.value) expect(JSON.parse(b.value)).toMatchObject({ z: 'Asia/Seoul' });
  });
  it('hostile cells stay inside the code block, escaped, within 3000 characters; cut rows said', () => {
    const items = Array.from({ length: 100 }, (_, i) => lic(i, 'fail', `${HOSTILE}\`\`\` end`));
    const m = dataTableMessage(
      'licenses',
      { items, page: 3, pageSize: 100, hasMore: true },
      { cid: HOSTILE.slice(0, 200) },
      { ...meta, siteId: 'DEMO' },
    );
    valid(m);
    safe(m);
    const section = m.blocks!.find(
      (b) => b.type === 'section' && 'text' in b && b.text?.text.startsWith('```'),
    ) as { text: { text: string } };
    expect(section.text.text.length).toBeLessThanOrEqual(3000);
    expect(section.text.text.match(/```/g)).toHaveLength(2);
    expect(JSON.stringify(m)).toContain('use Export CSV to see every row');
    const ids = JSON.stringify(m.blocks);
    expect(ids).toContain('svc_data_page_prev');
    expect(ids).toContain('svc_data_page_next');
  });
  it('users/devices/cids and empty pages', () => {
    for (const kind of ['users', 'devices', 'cids'] as const) {
      const items =
        kind === 'users'
          ? [{ userId: HOSTILE, licenseCount: 3, deviceCount: 1, success: 2, fail: 1 }]
          : kind === 'devices'
            ? [{ deviceId: HOSTILE, deviceModel: 'm', licenseCount: 3, success: 3, fail: 0 }]
            : [{ cid: HOSTILE, licenseCount: 5 }];
      const m = dataTableMessage(
        kind,
        { items, page: 1, pageSize: 25, hasMore: false },
        {},
        { ...meta, siteId: 'DEMO' },
      );
      valid(m);
      safe(m);
    }
    const empty = dataTableMessage(
      'cids',
      { items: [], page: 1, pageSize: 25, hasMore: false },
      {},
      { ...meta, siteId: 'DEMO' },
    );
    expect(JSON.stringify(empty)).toContain('Nothing matches');
    expect(JSON.stringify(empty)).not.toContain('svc_data_export');
  });
  it('packaging, export progress and done', () => {
    const recs: PackagingRecord[] = [
      { siteId: 'DEMO', cid: HOSTILE, track: 'HD', createdTime: tv(AT), updateTime: tv(AT) },
    ];
    const p = packagingMessage(recs, 'abc_DEF-123', { ...meta, siteId: 'DEMO' });
    valid(p);
    safe(p);
    expect(packagingMessage([], null, { ...meta, siteId: 'DEMO', continued: true })).toMatchSnapshot();
    valid(exportProgressMessage('DEMO', { kind: 'users', pages: 3, rows: 3000 }));
    const done = exportDoneMessage(
      'DEMO',
      {
        kind: 'licenses',
        csv: '',
        rowCount: 100_000,
        pages: 100,
        truncated: true,
        filename: 'drm-licenses-DEMO.csv',
      },
      {},
    );
    valid(done);
    expect(JSON.stringify(done)).toContain('export limit');
  });
  it('codeTable never ends the block early and never exceeds the limit', () => {
    const t = codeTable([{ header: 'A', width: 10 }], [['```'], ['a&b<c>']], 100);
    expect(t.text).toBe('```A\nˋˋˋ\na&amp;b&lt;c&gt;```');
    const big = codeTable(
      [{ header: 'A', width: 50 }],
      Array.from({ length: 200 }, () => ['x'.repeat(50)]),
    );
    expect(big.text.length).toBeLessThanOrEqual(3000);
    expect(big.shown).toBeLessThan(200);
  });
  it('encodeValue refuses over 2000 characters', () => {
    expect(() => encodeValue({ x: 'x'.repeat(2000) })).toThrow(/2000/);
  });
});

describe('stats', () => {
  it('deltas and snapshot', () => {
    expect(deltaText(delta(110, 100))).toBe(':arrow_up_small: +10 (+10.0%)');
    expect(deltaText(delta(90, 100))).toBe(':arrow_down_small: \u221210 (\u221210.0%)');
    expect(deltaText(delta(5, 0))).toContain('none the month before');
    expect(deltaText(delta(5, 5))).toBe('no change');
    const stats = {
      siteId: 'DEMO',
      targetDate: '2026-11-01',
      previousDate: '2026-10-01',
      current: { licenseCount: 1200, userCount: 300, deviceCount: 420, targetDate: '2026-11-01' },
      previous: { licenseCount: 1000, userCount: 310, deviceCount: 420, targetDate: '2026-10-01' },
      licenses: delta(1200, 1000),
      users: delta(300, 310),
      devices: delta(420, 420),
    };
    const m = statsMessage(stats, meta);
    valid(m);
    expect(m).toMatchSnapshot();
  });
});

describe('members', () => {
  const m = (seq: number, status: 'MT001' | 'MT002', email = `m${seq}@x.example`) =>
    toMemberView({ groupName: 'BIZ', groupSeq: 1000, memberSeq: seq, email, status, regDate: '2026-01-01' });
  it('inactive first, buttons per member, snapshot', () => {
    const msg = membersMessage(
      { items: [m(1, 'MT001'), m(2, 'MT002')], page: 1, pageSize: 20, hasMore: false },
      meta,
    );
    valid(msg);
    expect(msg).toMatchSnapshot();
  });
  it('a full page with hostile e-mails stays within 50 blocks and escaped', () => {
    const items = Array.from({ length: 20 }, (_, i) => m(i + 1, i % 2 ? 'MT001' : 'MT002', `${HOSTILE}@x`));
    const msg = membersMessage({ items, page: 2, pageSize: 20, hasMore: true }, { ...meta, banner: 'ok' });
    valid(msg);
    safe(msg);
    expect(msg.blocks!.length).toBeLessThanOrEqual(50);
    validV(groupModal(items[0]!, '{}'));
    valid(memberAddedMessage({ memberSeq: 3, email: HOSTILE, groupSeq: 1001, groupLabel: 'TS' }, meta));
  });
});

describe('settings and fpscert', () => {
  const raw = {
    siteId: 'DEMO',
    siteKey: 'SITEKEY-SECRET-0123456789',
    accessKey: 'ACCESSKEY-SECRET-0123456789',
    kmsToken: 'KMSTOKEN-SECRET-0123456789',
    iv: 'IV-SECRET-0123456789',
    licenseCallbackUrl: 'https://a.example/<!channel>',
    packageCallbackUrl: '',
    tokenDuration: 3600,
  };
  it('only masked values, snapshot; the edit form has no secret', () => {
    const msg = settingsMessage(maskSettings(raw), meta);
    valid(msg);
    safe(msg);
    const s = JSON.stringify(msg);
    for (const secret of [raw.siteKey, raw.accessKey, raw.kmsToken, raw.iv]) expect(s).not.toContain(secret);
    expect(msg).toMatchSnapshot();
    const v = settingsEditModal(maskSettings(raw), '{}', 'failure <x>');
    validV(v);
    const vs = JSON.stringify(v);
    for (const secret of [raw.siteKey, raw.accessKey, raw.kmsToken, raw.iv]) expect(vs).not.toContain(secret);
  });
  it('fpscert modal and done view', () => {
    const v = fpsCertModal('DEMO', '{}', ['• bad']);
    validV(v);
    expect(v).toMatchSnapshot();
    validV(
      fpsCertModal('DEMO', '{}', undefined, {
        svc_fps_secrets_file: HOSTILE,
        svc_fps_cert: 'x'.repeat(4000),
      }),
    );
    validV(
      fpsCertDoneView({
        siteId: 'DEMO',
        certificate: { filename: HOSTILE, bytes: 1 },
        privateKey: { filename: 'k.pem', bytes: 2 },
      }),
    );
  });
});
