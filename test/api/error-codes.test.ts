import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ERROR_CODES,
  errorCondition,
  isServiceCondition,
  loadErrorCodes,
} from '../../src/api/error-codes.js';
import { ServiceError } from '../../src/api/errors.js';

describe('error codes', () => {
  it('maps default codes to conditions', () => {
    expect(errorCondition('E2002', DEFAULT_ERROR_CODES)).toBe('duplicateRecipient');
    expect(errorCondition(new ServiceError('x', 'E2003', 'm'), DEFAULT_ERROR_CODES)).toBe('recipientInUse');
    expect(errorCondition('E7777', DEFAULT_ERROR_CODES)).toBeUndefined();
    expect(errorCondition(new Error('E2002'))).toBeUndefined();
    expect(
      isServiceCondition(new ServiceError('x', 'E4002', ''), 'requestNotPending', DEFAULT_ERROR_CODES),
    ).toBe(true);
  });
  it('applies overrides from JSON and ignores unknown conditions', () => {
    const t = loadErrorCodes('{"duplicateRecipient":"9002","nonsense":"1"}');
    expect(t.duplicateRecipient).toBe('9002');
    expect(errorCondition('9002', t)).toBe('duplicateRecipient');
    expect(errorCondition('E2002', t)).toBeUndefined();
    expect(loadErrorCodes('')).toEqual(DEFAULT_ERROR_CODES);
  });
  it('takes several codes per condition, and codes that mean a condition on one API only', () => {
    const t = loadErrorCodes(
      '{"jobNotFound":["J404","E3001"],"svc.requestNotFound":["404"],"wm.jobNotFound":"W1"}',
    );
    expect(t.jobNotFound).toBe('J404');
    expect(errorCondition('J404', t)).toBe('jobNotFound');
    expect(errorCondition('E3001', t)).toBe('jobNotFound');
    // Per API: the code means the condition on that API's answers only.
    expect(errorCondition(new ServiceError('svc.getLatestStatusRequest', '404', ''), t)).toBe(
      'requestNotFound',
    );
    expect(errorCondition(new ServiceError('wm.getJob', '404', ''), t)).toBeUndefined();
    expect(errorCondition(new ServiceError('wm.getJob', 'W1', ''), t)).toBe('jobNotFound');
    expect(errorCondition(new ServiceError('svc.x', 'W1', ''), t)).toBeUndefined();
    // The default code of a condition given for one API only still holds.
    expect(errorCondition(new ServiceError('svc.x', 'E4001', ''), t)).toBe('requestNotFound');
  });
  it('explains a malformed override', () => {
    expect(() => loadErrorCodes('{nope')).toThrow(/SERVICE_ERROR_CODES is not valid JSON/);
    expect(() => loadErrorCodes('{"internal": 5}')).toThrow(/condition name .* to a code string or a list/);
  });
});
