/**
 * Every packaging cursor the op makes fits the "More" button value with its wrapper,
 * and the button's schema accepts it.
 */
import { describe, expect, it } from 'vitest';
import { CURSOR_MAX_CHARS } from '../../../../src/ops/service/drm-data.js';
import { packagingValue } from '../../../../src/slack/features/drm-data/values.js';
import { LIMITS } from '../../../../src/slack/kit/blocks/blocks.js';
import { decodeValue, encodeValue } from '../../../../src/slack/shared/svc/values.js';

describe('packaging More value', () => {
  it('the longest cursor of the op, with the longest workspace id, encodes and decodes', () => {
    const v = { w: 'T'.repeat(64), c: 'a'.repeat(CURSOR_MAX_CHARS) };
    const raw = encodeValue(v);
    expect(raw.length).toBeLessThanOrEqual(LIMITS.buttonValue);
    expect(decodeValue(packagingValue, raw)).toEqual(v);
  });
});
