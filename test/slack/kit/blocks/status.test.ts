import { describe, expect, it } from 'vitest';
import { JOB_STATUS_CODES, TASK_STATUS_CODES } from '../../../../src/api/codes.js';
import {
  jobStatus,
  requestStatus,
  statusLabel,
  taskStatus,
} from '../../../../src/slack/kit/blocks/status.js';

describe('status mapping', () => {
  it('matches the style guide', () => {
    expect(JOB_STATUS_CODES.map(jobStatus)).toMatchInlineSnapshot(`
      [
        ":white_circle: READY",
        ":large_blue_circle: PREPROCESSING",
        ":large_green_circle: COMPLETED",
        ":red_circle: ERROR",
      ]
    `);
    expect(TASK_STATUS_CODES.map(taskStatus)).toMatchInlineSnapshot(`
      [
        ":white_circle: READY",
        ":large_blue_circle: PROGRESSING",
        ":large_green_circle: COMPLETE",
        ":red_circle: FAIL",
      ]
    `);
    expect(['ST001', 'ST002', 'ST003'].map(requestStatus)).toEqual([
      ':hourglass_flowing_sand: Pending',
      ':no_entry_sign: Cancelled',
      ':white_check_mark: Approved',
    ]);
    expect(statusLabel('product', 'SE001')).toBe(':red_circle: Suspended');
    expect(statusLabel('member', 'MT001')).toBe(':large_green_circle: Active');
  });
  it('never emoji alone; unknown codes are escaped text', () => {
    expect(statusLabel('job', '<!here>')).toBe(':grey_question: unknown (&lt;!here&gt;)');
  });
});
