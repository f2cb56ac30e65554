/**
 * The problem views take mrkdwn that is already escaped and do not escape it again.
 */
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/api/errors.js';
import { recipientEditFailedView } from '../../../src/slack/features/recipients/render.js';
import { registerProblemView } from '../../../src/slack/features/register/render.js';
import { esc } from '../../../src/slack/kit/blocks/mrkdwn.js';
import { explainError } from '../../../src/slack/kit/context/errors.js';

describe('problem views escape once', () => {
  const ex = explainError(new ServiceError('recipients.get', 'E1', 'id < 0 & bad'), { refId: 'r1' });

  it('recipientEditFailedView shows explainError text once-escaped', () => {
    const text = JSON.stringify(recipientEditFailedView(`Couldn't load. ${ex.why}`));
    expect(text).toContain('id &lt; 0 &amp; bad');
    expect(text).not.toContain('&amp;lt;');
  });

  it('registerProblemView keeps an escaped file name escaped once and a live token impossible', () => {
    const text = JSON.stringify(registerProblemView(esc('<!channel> & x.csv is not a text file'), '{}'));
    expect(text).toContain('&lt;!channel&gt; &amp; x.csv');
    expect(text).not.toContain('<!channel>');
  });
});
