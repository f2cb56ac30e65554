/**
 * The service check's Service API points: the login (the JWT accepted), how a product without a
 * plan request is answered and the plan request status words seen, the additional-site request
 * status words against SERVICE_SITE_REQUEST_STATUSES, and where POST/PUT parameters go (told,
 * never observed: the check only reads).
 */
import { errorCondition } from '../../api/error-codes.js';
import { PermissionError, refusalExplanation } from '../../api/errors.js';
import { siteRequestReading } from '../../api/site-request-statuses.js';
import type { DoctorCheck } from './context.js';
import {
  dataOf,
  failureText,
  type NoneReading,
  noneReading,
  notFoundFinding,
  notObserved,
} from './readings.js';

export const svcLogin: DoctorCheck = {
  id: 'svc.login',
  point: 'Service API login (JWT)',
  async run(ctx) {
    if (!ctx.svc) return notObserved('no Service API credentials');
    const p = await ctx.svcGet('getSites', '/account/siteId');
    if (p.err instanceof PermissionError) {
      return {
        status: 'info',
        reading: `the JWT was accepted, but the site list is not permitted for this account (permissions are per API). ${refusalExplanation(p.err)}`,
      };
    }
    if (p.err) {
      return {
        status: 'failed',
        reading: failureText(p.err),
        next: 'Fix the credentials (or the SERVICE_JWT_* settings named above) and run the check again.',
      };
    }
    return { status: 'ok', reading: 'the JWT was accepted' };
  },
};

const SVC_PRODUCT_CODES = ['PD001', 'PD002'] as const;

export const planNone: DoctorCheck = {
  id: 'svc.planNone',
  point: 'A product without plan requests (endpoint 8)',
  async run(ctx) {
    if (!ctx.svc) return notObserved('no Service API credentials');
    const sites = await ctx.svcGet('getSites', '/account/siteId');
    const listed = Array.isArray(dataOf(sites)) ? (dataOf(sites) as Array<Record<string, unknown>>) : [];
    const pairs: Array<[string, string]> = [];
    for (const s of listed) {
      const id = typeof s.site_id === 'string' ? s.site_id : undefined;
      if (!id || !ctx.siteIds.includes(id)) continue;
      const products = Array.isArray(s.product_list)
        ? (s.product_list as Array<Record<string, unknown>>)
        : [];
      for (const pr of products) if (typeof pr.service_code === 'string') pairs.push([id, pr.service_code]);
    }
    // The site list not permitted (or no product listed): every site id with both products.
    if (pairs.length === 0)
      for (const id of ctx.siteIds) for (const c of SVC_PRODUCT_CODES) pairs.push([id, c]);
    ctx.planAnswers = [];
    const readings: NoneReading[] = [];
    for (const [siteId, code] of pairs.slice(0, 20)) {
      const probe = await ctx.svcGet(
        'getLatestStatusRequest',
        `/plan/request/status/${encodeURIComponent(siteId)}`,
        {
          service_code: code,
        },
      );
      ctx.planAnswers.push({ siteId, serviceCode: code, probe });
      readings.push(noneReading(probe));
    }
    const none = readings.filter((r) => r.kind !== 'data' && r.kind !== 'failed');
    if (none.length === 0) {
      const failed = readings.find((r) => r.kind === 'failed');
      if (failed && failed.kind === 'failed') return { status: 'failed', reading: failureText(failed.err) };
      return notObserved('every product has a plan request: nothing to learn from');
    }
    // Refusals first: a code the table does not know is the one that needs a setting.
    const refusal = none.find(
      (r) =>
        r.kind === 'refusal' && errorCondition(r.code, ctx.settings.errorCodes, 'svc') !== 'requestNotFound',
    );
    return notFoundFinding(ctx, refusal ?? (none[0] as NoneReading), 'requestNotFound', 'endpoint 8', 'svc');
  },
};

export const planStatuses: DoctorCheck = {
  id: 'svc.planStatuses',
  point: 'Plan request status words (reg_status)',
  async run(ctx) {
    if (!ctx.svc) return notObserved('no Service API credentials');
    if (!ctx.planAnswers) await planNone.run(ctx);
    const words = new Set<string>();
    for (const a of ctx.planAnswers ?? []) {
      const d = dataOf(a.probe);
      const o = (Array.isArray(d) ? d[0] : d) as Record<string, unknown> | undefined;
      if (o && typeof o.reg_status === 'string' && o.reg_status !== '') words.add(o.reg_status);
    }
    if (words.size === 0) return notObserved('no plan request to read a status from');
    const unknown = [...words].filter((w) => !['ST001', 'ST002', 'ST003'].includes(w));
    if (unknown.length === 0)
      return { status: 'ok', reading: `seen: ${[...words].join(', ')} (all listed in the spec)` };
    return {
      status: 'info',
      reading: `seen: ${[...words].join(', ')}; not in the spec: ${unknown.join(', ')}. A request at such a status stays followed and is told as it is once it has stood SITE_REQUEST_UNKNOWN_STATUS_MINUTES`,
    };
  },
};

export const siteRequestStatuses: DoctorCheck = {
  id: 'svc.siteRequestStatuses',
  point: 'Additional-site request status words',
  async run(ctx) {
    if (!ctx.svc) return notObserved('no Service API credentials');
    const p = await ctx.svcGet('listAdditionalSiteRequests', '/account/siteId/approve', { page_unit: 1000 });
    if (p.err) return { status: 'failed', reading: failureText(p.err) };
    const rows = Array.isArray(dataOf(p)) ? (dataOf(p) as Array<Record<string, unknown>>) : [];
    const words = [
      ...new Set(rows.map((r) => (typeof r.status === 'string' ? r.status : '')).filter(Boolean)),
    ];
    if (words.length === 0) return notObserved('no additional-site request to read a status from');
    const unknown = words.filter((w) => siteRequestReading(w, ctx.settings.siteStatuses) === undefined);
    const known = words
      .filter((w) => !unknown.includes(w))
      .map((w) => `${w} (${siteRequestReading(w, ctx.settings.siteStatuses)})`);
    if (unknown.length === 0) return { status: 'ok', reading: `seen: ${known.join(', ')}` };
    return {
      status: 'setting',
      reading: `seen: ${[...known, ...unknown.map((w) => `${w} (unknown)`)].join(', ')}`,
      next: `Say what ${unknown.map((w) => `"${w}"`).join(', ')} mean${unknown.length === 1 ? 's' : ''}: replace each "pending|approved|cancelled" by one of the three.`,
      env: [
        {
          name: 'SERVICE_SITE_REQUEST_STATUSES',
          entries: Object.fromEntries(unknown.map((w) => [w, 'pending|approved|cancelled'])),
        },
      ],
    };
  },
};

export const placement: DoctorCheck = {
  id: 'svc.placement',
  point: 'Where POST/PUT parameters go',
  async run(ctx) {
    return notObserved(
      `cannot be observed without a write (this check only reads); the bot sends SERVICE_BODY_ENCODING=${ctx.settings.bodyEncoding}, SERVICE_API_CODE_IN=${ctx.settings.apiCodeIn}. If a change through the bot is refused with "api_code" or a parameter missing, try query, or body/both`,
    );
  },
};
