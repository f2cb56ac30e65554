import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  JOB_STATUS_CODES,
  MEMBER_STATUS,
  PRODUCT_STATUS,
  REQUEST_STATUS,
  REQUEST_TYPE,
  SERVICE_CODES,
  TASK_STATUS_CODES,
} from '../../src/api/codes.js';
import { decodeData, decodeEnvelope, formatPath, listOf, parseWith } from '../../src/api/envelope.js';
import {
  AuthError,
  PermissionError,
  ProtocolError,
  ServiceError,
  TransportError,
} from '../../src/api/errors.js';
import { codeOf, intLike } from '../../src/api/fields.js';
import type { HttpResponse } from '../../src/api/http.js';

const res = (body: unknown, status = 200): HttpResponse => ({
  status,
  headers: {},
  text: typeof body === 'string' ? body : JSON.stringify(body),
  attempts: 1,
});

describe('decodeEnvelope', () => {
  it('success is error_code "0000" or the number 0 only; another zero form is the failure code it is', () => {
    for (const code of ['0000', 0]) {
      expect(decodeEnvelope('e', res({ error_code: code, data: { a: 1 } })).data).toEqual({ a: 1 });
    }
    for (const code of ['0', '00', '000']) {
      expect(() => decodeEnvelope('e', res({ error_code: code, data: { a: 1 } }))).toThrow(
        expect.objectContaining({ kind: 'service', code }),
      );
    }
  });
  it('turns other codes into ServiceError with code and message', () => {
    const err = (() => {
      try {
        decodeEnvelope(
          'wm.registerRecipients',
          res({ error_code: 'E2002', error_message: 'duplicate: a, b' }),
        );
      } catch (e) {
        return e;
      }
    })() as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe('E2002');
    expect(err.serviceMessage).toBe('duplicate: a, b');
    expect(err.endpoint).toBe('wm.registerRecipients');
  });
  it('masks secrets and invisible/bidi characters in an error envelope (its message reaches users)', async () => {
    const { registerSecret } = await import('../../src/log.js');
    registerSecret('envelope-echoed-secret-42');
    const err = (() => {
      try {
        decodeEnvelope(
          'svc.getSites',
          res({
            error_code: 'E9001',
            error_message: 'bad key envelope-echoed-secret-42 for\u202esite\u{e0041}\u061c x',
          }),
        );
      } catch (e) {
        return e;
      }
    })() as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.serviceMessage).not.toContain('envelope-echoed-secret-42');
    expect(err.serviceMessage).toContain('[REDACTED]');
    expect(err.serviceMessage).not.toMatch(/[\u202e\u061c]|\u{e0041}/u);
    expect(err.serviceMessage).toContain('site');
  });
  it('maps 401, 403 and other statuses', () => {
    expect(() => decodeEnvelope('e', res('', 401))).toThrow(AuthError);
    expect(() => decodeEnvelope('e', res('', 403))).toThrow(PermissionError);
    const e = (() => {
      try {
        decodeEnvelope('e', res('', 404));
      } catch (x) {
        return x as TransportError;
      }
    })();
    expect(e).toBeInstanceOf(TransportError);
    expect(e?.status).toBe(404);
    expect(e?.ambiguous).toBe(false);
  });
  it('refuses bodies that are not a JSON envelope', () => {
    expect(() => decodeEnvelope('e', res('<html>oops</html>'))).toThrow(ProtocolError);
    expect(() => decodeEnvelope('e', res([1, 2]))).toThrow(/expected a JSON object/);
    const e = (() => {
      try {
        decodeEnvelope('e', res({ data: {} }));
      } catch (x) {
        return x as ProtocolError;
      }
    })();
    expect(e?.field).toBe('error_code');
  });
  it('normalises time_zone and coerces counts', () => {
    const env = decodeEnvelope(
      'e',
      res({ error_code: '0000', time_zone: '09:00', total_count: '12', data: [] }),
    );
    expect(env.timeZone).toBe('+09:00');
    expect(env.totalCount).toBe(12);
    // Not an offset: ignored (the client falls back to the offset it asked for), never a failure.
    for (const tz of ['KST', 'Asia/Seoul', 'GMT+09:00', '']) {
      const e = decodeEnvelope('e', res({ error_code: '0000', time_zone: tz, data: [] }));
      expect(e.timeZone).toBeUndefined();
      expect(e.timeZoneIgnored).toBe(tz);
    }
  });
});

describe('data validation', () => {
  const job = z.object({ job_id: intLike, job_status: codeOf(JOB_STATUS_CODES) });
  it('coerces numeric strings and ignores unknown fields', () => {
    const { data } = decodeData(
      'e',
      res({ error_code: '0000', data: [{ job_id: '7', job_status: 'DM500', extra: true }] }),
      z.array(job),
    );
    expect(data).toEqual([{ job_id: 7, job_status: 'DM500' }]);
  });
  it('keeps an unknown status code as sent instead of failing the list; an empty code is refused', () => {
    const rows = parseWith('wm.searchJobs', z.array(job), [
      { job_id: 1, job_status: 'DM000' },
      { job_id: 2, job_status: 'DM999' },
    ]);
    expect(rows).toEqual([
      { job_id: 1, job_status: 'DM000' },
      { job_id: 2, job_status: 'DM999' },
    ]);
    const e = (() => {
      try {
        parseWith('wm.searchJobs', z.array(job), [{ job_id: 2, job_status: ' ' }]);
      } catch (x) {
        return x as ProtocolError;
      }
    })();
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e?.field).toBe('data[0].job_status');
  });
  it('reads every family of codes case-insensitively, as the table spells them', () => {
    const families: Array<[readonly string[], string, string]> = [
      [JOB_STATUS_CODES, 'dm500', 'DM500'],
      [TASK_STATUS_CODES, 'tk005', 'TK005'],
      [Object.keys(PRODUCT_STATUS), 'se001', 'SE001'],
      [SERVICE_CODES, 'Pd002', 'PD002'],
      [Object.keys(MEMBER_STATUS), 'mt002', 'MT002'],
      [Object.keys(REQUEST_STATUS), 'st003', 'ST003'],
      [Object.keys(REQUEST_TYPE), 'sm001', 'SM001'],
    ];
    for (const [codes, sent, read] of families) {
      expect(parseWith('e', codeOf(codes), ` ${sent} `)).toBe(read);
    }
    // An unlisted code is still kept as sent.
    expect(parseWith('e', codeOf(JOB_STATUS_CODES), 'dm700')).toBe('dm700');
  });
  it('refuses a non-integer id', () => {
    expect(() => parseWith('e', job, { job_id: 'x7', job_status: 'DM000' })).toThrow(/data\.job_id/);
    expect(() => parseWith('e', job, { job_id: 1.5, job_status: 'DM000' })).toThrow(ProtocolError);
  });
  it('formats paths', () => {
    expect(formatPath('data', [3, 'x'])).toBe('data[3].x');
    expect(formatPath('', ['error_code'])).toBe('error_code');
    expect(formatPath('', [])).toBe('body');
  });
});

describe('listOf', () => {
  it('reads null, absent, "" or {} list data as an empty list, and checks every item', () => {
    const ints = listOf(z.number().int());
    expect(parseWith('t', ints, null)).toEqual([]);
    expect(parseWith('t', ints, undefined)).toEqual([]);
    expect(parseWith('t', ints, '')).toEqual([]);
    expect(parseWith('t', ints, {})).toEqual([]);
    expect(() => parseWith('t', ints, { a: 1 })).toThrow(ProtocolError);
    expect(parseWith('t', ints, [1, 2])).toEqual([1, 2]);
    expect(() => parseWith('t', ints, [1, 'x'])).toThrow(/data\.1|data\[1\]/);
  });

  it('builds one list schema per item schema, not one per response', () => {
    const item = z.object({ a: z.string() });
    expect(listOf(item)).toBe(listOf(item));
    expect(listOf(z.object({ a: z.string() }))).not.toBe(listOf(item));
  });
});
