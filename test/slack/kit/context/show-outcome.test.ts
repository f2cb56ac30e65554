/**
 * showOutcome: a form's final view that Slack will not take is sent to the user as a message,
 * within a message's 50 blocks (a view may hold 100).
 */
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { LIMITS, modal, section } from '../../../../src/slack/kit/blocks/blocks.js';
import type { CommandContext } from '../../../../src/slack/kit/context/context.js';
import { showOutcome } from '../../../../src/slack/kit/context/support.js';

function ctxReplying() {
  const replies: Array<{ text: string; blocks?: unknown[] }> = [];
  const quiet = () => undefined;
  const ctx = {
    refId: 'ref1',
    logger: { warn: quiet, error: quiet, info: quiet, debug: quiet },
    respond: async (m: { text: string; blocks?: unknown[] }) => {
      replies.push(m);
    },
  } as unknown as CommandContext;
  return { ctx, replies };
}

const refusing = {
  views: {
    update: async () => {
      throw Object.assign(new Error('not_found'), {
        code: 'slack_webapi_platform_error',
        data: { error: 'not_found' },
      });
    },
  },
} as unknown as WebClient;

describe('showOutcome', () => {
  it('a view Slack will not take goes out as a message of at most 50 blocks', async () => {
    const { ctx, replies } = ctxReplying();
    const view = modal(
      'done',
      'Saved',
      Array.from({ length: 80 }, (_, i) => section(`line ${i}`)),
    );
    await showOutcome(ctx, refusing, 'V1', view);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.text).toBe('Saved');
    expect(replies[0]?.blocks?.length).toBeLessThanOrEqual(LIMITS.messageBlocks);
    expect(JSON.stringify(replies[0]?.blocks)).toContain('line 0');
  });
});
