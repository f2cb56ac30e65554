/**
 * The service check's watermarking API points: the login (a token issued and accepted for the
 * sites) and how a job or a recipient that does not exist is answered (its code compared with
 * SERVICE_ERROR_CODES).
 */
import { AuthError, PermissionError, ServiceError } from '../../api/errors.js';
import { type DoctorCheck, IMPOSSIBLE_ID } from './context.js';
import { failureText, firstSite, noneReading, notFoundFinding, notObserved } from './readings.js';

export const wmLogin: DoctorCheck = {
  id: 'wm.login',
  point: 'Watermarking API login (token)',
  async run(ctx) {
    if (!ctx.wm) return notObserved('no watermarking credentials');
    const refused: string[] = [];
    for (const siteId of ctx.siteIds.slice(0, 10)) {
      const p = await ctx.wmGet(siteId, `/api/job/${encodeURIComponent(siteId)}`, {
        page_unit: 1,
        time_zone: '+09:00',
      });
      if (p.err instanceof AuthError || p.err instanceof PermissionError)
        refused.push(`${siteId}: ${failureText(p.err)}`);
      else if (p.err && !(p.err instanceof ServiceError)) refused.push(`${siteId}: ${failureText(p.err)}`);
    }
    if (refused.length) {
      return {
        status: 'failed',
        reading: refused.join(' '),
        next: 'Fix the watermarking account id / access key or the site ids, and run the check again.',
      };
    }
    return {
      status: 'ok',
      reading: `a token was issued and accepted for ${ctx.siteIds.slice(0, 10).join(', ')}`,
    };
  },
};

/** A watermarking lookup of an id no service hands out: how "not found" is said, and its code. */
function missingCheck(
  id: string,
  point: string,
  kind: 'job' | 'recipient',
  condition: 'jobNotFound' | 'recipientNotFound',
): DoctorCheck {
  return {
    id,
    point,
    async run(ctx) {
      const site = firstSite(ctx);
      if (!ctx.wm || !site) return notObserved('no watermarking credentials');
      const p = await ctx.wmGet(site, `/api/${kind}/${encodeURIComponent(site)}/${IMPOSSIBLE_ID}`, {
        time_zone: '+00:00',
      });
      return notFoundFinding(ctx, noneReading(p), condition, `a ${kind} id that cannot exist`, 'wm');
    },
  };
}

export const missingJob = missingCheck('wm.jobNotFound', 'A job that does not exist', 'job', 'jobNotFound');
export const missingRecipient = missingCheck(
  'wm.recipientNotFound',
  'A recipient that does not exist',
  'recipient',
  'recipientNotFound',
);
