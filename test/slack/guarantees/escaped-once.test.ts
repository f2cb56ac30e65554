/**
 * A service error message is escaped exactly once: `explainError().why` is already escaped
 * mrkdwn, and the registration preview must not escape it again (a "<" in the service's message
 * would show as the literal text "&lt;").
 */
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/api/errors.js';
import { planIntoView } from '../../../src/slack/features/register/modals.js';
import { fakeContext } from '../../support/fake-context.js';

describe('registration preview failure', () => {
  it("shows the service's message once-escaped", async () => {
    const ctx = fakeContext();
    ctx.clients = async () => {
      throw new ServiceError('recipients.search', 'E1234', 'keyword must be < 128 & > 0');
    };
    const updates: Array<{ view: unknown }> = [];
    const client = {
      views: {
        update: async (a: { view: unknown }) => {
          updates.push(a);
          return { ok: true };
        },
      },
    };
    await planIntoView({} as never, ctx, client as never, 'V1', {
      id: 'd1',
      userId: 'U1',
      siteId: 'DEMO',
      text: 'alice',
      createdAt: '2026-11-22T09:00:00Z',
    });
    const text = JSON.stringify(updates[0]?.view);
    expect(text).toContain('keyword must be');
    // Slack shows mrkdwn "&lt;" as "<"; escaping twice ("&amp;lt;") would show "&lt;".
    expect(text).toContain('keyword must be &lt; 128 &amp; &gt; 0');
  });
});
