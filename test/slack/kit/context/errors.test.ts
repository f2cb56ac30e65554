import { describe, expect, it } from 'vitest';
import {
  AuthError,
  PermissionError,
  ProtocolError,
  ServiceError,
  TransportError,
  ValidationError,
} from '../../../../src/api/errors.js';
import { NotConfiguredError, SiteNotConfiguredError } from '../../../../src/ops/workspace.js';
import { ParseError } from '../../../../src/slack/kit/commands/parse.js';
import { explainError, renderError, renderRefused } from '../../../../src/slack/kit/context/errors.js';
import { countLines } from '../../../support/lines.js';

const opts = { refId: 'abcd1234', admins: '<@UADMIN> or a workspace admin', command: '/dwm' };

describe('error rendering', () => {
  const cases: Array<[string, unknown]> = [
    ['parse', new ParseError('Unknown option `x:`.', '/dwm jobs [status:ready|error]')],
    ['not configured', new NotConfiguredError('watermarking')],
    ['site', new SiteNotConfiguredError('ZZ99', ['AB12', 'CD34'])],
    [
      'validation',
      new ValidationError('wm.register', [{ field: 'name', message: 'The name contains "<".' }]),
    ],
    ['service known', new ServiceError('wm.modify', 'E2003', 'recipient in use')],
    ['service unknown', new ServiceError('wm.modify', 'X123', 'odd <@U1>')],
    [
      'auth',
      new AuthError(
        'wm.token',
        'wm.token: the service refused the credentials or token (HTTP 401), saying "User information not found.".',
      ),
    ],
    [
      'permission',
      new PermissionError(
        'svc.sites',
        'svc.sites: this account has no permission for this API (HTTP 403), the service says "No permission".',
      ),
    ],
    ['transport', new TransportError('wm.jobs', 'timeout', undefined, 3)],
    ['rate limited', new TransportError('wm.jobs', '429', 429, 4)],
    ['protocol', new ProtocolError('wm.jobs', 'data[0].job_status', 'expected string')],
    ['unexpected', new TypeError("Cannot read properties of undefined (reading 'x')")],
  ];
  for (const [name, err] of cases) {
    it(`renders ${name}`, () => {
      const m = renderError("Couldn't list jobs", err, opts);
      expect(m).toMatchSnapshot();
      const all = JSON.stringify(m);
      expect(all).not.toMatch(/<@U1>|\bat \w+ \(/);
      expect(all).not.toContain('Cannot read properties');
    });
  }
  it('a format error the API layer can explain (a web page, no answer) says what to check, escaped', async () => {
    const { decodeEnvelope } = await import('../../../../src/api/envelope.js');
    const page = (() => {
      try {
        decodeEnvelope('svc.getSites', {
          status: 200,
          headers: { 'content-type': 'text/html' },
          text: '<html><head><title>Sign in <@U1></title></head><body></body></html>',
          attempts: 1,
        });
      } catch (e) {
        return e;
      }
    })();
    const why = explainError(page, opts).why;
    expect(why).toContain('a web page');
    expect(why).toContain('/dwm setup');
    expect(why).not.toContain('<@U1>');
    expect(explainError(new ProtocolError('e', 'f', 'd'), opts).why).not.toContain('web page');
  });
  it('a redirect (never followed) sends admins to the base URL, not to "try again"', () => {
    const ex = explainError(new TransportError('wm.searchJobs', 'moved', 301, 1, undefined, false), opts);
    expect(ex.why).toContain('redirect (HTTP 301)');
    expect(ex.next).toContain('setup');
    expect(ex.next).not.toContain('Try again');
  });
  it('flags only unknown failures as unexpected', () => {
    expect(explainError(new ProtocolError('e', 'f', 'd'), opts).unexpected).toBe(true);
    expect(explainError(new Error('x'), opts).unexpected).toBe(true);
    expect(explainError(new AuthError('e', 'm'), opts).unexpected).toBe(false);
  });
  it('auth errors send admins to setup; service errors explain the condition in plain words', () => {
    expect(explainError(new AuthError('e', 'm'), opts).next).toContain('`/dwm setup`');
    // The API layer's explanation (server text, clock note), escaped, without the endpoint prefix.
    const why = explainError(
      new AuthError(
        'svc.getSites',
        'svc.getSites: the service refused it, saying "<!here> clock". The server\'s clock is 10 minutes ahead.',
      ),
      opts,
    ).why;
    expect(why).toContain(
      'The service refused it, saying "&lt;!here&gt; clock". The server\'s clock is 10 minutes ahead.',
    );
    expect(explainError(new ServiceError('e', 'E2003', 'm'), opts).why).toContain('pre-embedding');
  });
  it('a service error with an empty message shows its code alone, without a dangling colon', () => {
    expect(explainError(new ServiceError('e', 'X123', ''), opts).why).toBe('The service answered `X123`.');
    expect(explainError(new ServiceError('e', 'X123', '  '), opts).why).toBe('The service answered `X123`.');
    expect(explainError(new ServiceError('e', 'X123', 'odd'), opts).why).toBe(
      'The service answered `X123`: odd',
    );
  });
  it('refusal says who to ask', () => {
    expect(renderRefused('run /drm plan trial', '<@UADMIN> or a workspace admin')).toMatchSnapshot();
  });
});

describe('workflow step text (plain, as Workflow Builder shows it)', () => {
  it('mentions, the admin group, code and entities become plain words', async () => {
    const { plainText } = await import('../../../../src/slack/kit/interactions/steps.js');
    expect(plainText('Ask <@U0ADMIN1>, <!subteam^S0ADMINS> or a workspace admin: `x` &lt;y&gt; &amp;')).toBe(
      'Ask @U0ADMIN1, the admin group or a workspace admin: x <y> &',
    );
  });
});

describe('a change whose outcome is unknown', () => {
  const lost = (endpoint: string) => new TransportError(endpoint, 'reset', undefined, 1, undefined, true);
  it('a creation: check before trying again; setting a value again: trying again is safe', () => {
    expect(explainError(lost('svc.createSubMember'), opts).next).toBe(
      'Check with `/drm members` whether it was done before trying again, so it is not done twice.',
    );
    expect(explainError(lost('svc.updateSettings'), opts).next).toContain('trying again is safe');
    expect(explainError(lost('svc.resetSubMemberPassword'), opts).next).toContain('second password reset');
    for (const e of ['svc.createSubMember', 'svc.updateSettings', 'svc.resetSubMemberPassword'])
      expect(explainError(lost(e), opts).why).toContain('cannot tell whether the change was made');
  });
  it('a failed read, or a change refused before it was processed (429, not ambiguous), is not "unknown"', () => {
    expect(explainError(lost('svc.listSubMembers'), opts).why).not.toContain('cannot tell');
    const busy = new TransportError('svc.createSubMember', '429', 429, 1, undefined, false);
    expect(explainError(busy, opts).next).toContain('Nothing was changed');
  });
});

describe('everyday errors in words', () => {
  const opts = { refId: 'ref-1', command: '/dwm' };
  const lines = (m: { blocks?: unknown[] }) => countLines(m as never);

  it('a lookup that found nothing says so in words, at most 3 lines, the code only in a last context line', () => {
    const m = renderError(
      '/dwm job failed',
      new ServiceError('wm.getJob', 'E3001', 'Job 987654 not found'),
      opts,
    );
    expect(lines(m)).toBeLessThanOrEqual(3);
    const blocks = m.blocks as Array<{ type: string }>;
    const first = JSON.stringify(blocks.slice(0, -1));
    expect(first).not.toContain('E3001');
    expect(first).toContain('No job has that id.');
    expect(first).toContain('`/dwm jobs` lists recent jobs');
    expect(first).not.toContain('failed');
    expect(blocks.at(-1)?.type).toBe('context');
    expect(JSON.stringify(blocks.at(-1))).toContain('Service code `E3001`: Job 987654 not found');
    expect(m.text).toBe('No job has that id. /dwm jobs lists recent jobs.');
  });

  it('a read that cannot reach the service says so plainly: no retry count, no "nothing was changed"', () => {
    const m = renderError(
      '/dwm jobs failed',
      new TransportError('wm.searchJobs', 'timeout', undefined, 4),
      opts,
    );
    const all = JSON.stringify(m);
    expect(m.text).toBe(
      "Can't reach the watermarking service right now, so /dwm jobs couldn't run. Try again in a minute.",
    );
    expect(all).not.toContain('Tried');
    expect(all).not.toContain('Nothing was changed');
    expect(lines(m)).toBeLessThanOrEqual(3);
  });

  it('a change keeps its precise wording', () => {
    const m = renderError(
      '/drm members add failed',
      new TransportError('svc.createSubMember', 'reset', undefined, 1, undefined, true),
      opts,
    );
    expect(JSON.stringify(m)).toContain('cannot tell whether the change was made');
  });
});
