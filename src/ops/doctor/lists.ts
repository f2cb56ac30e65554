/**
 * The service check's list readings: whether the lists carry a total (total_count on the job and
 * task lists) and whether a service caps the page size below the 1000 the bot asks for (the
 * recipient list of the watermarking API, the license list of the Service API). A change to how
 * lists are counted or paged is checked here.
 */
import type { DoctorCheck } from './context.js';
import { dataOf, failureText, firstSite, firstSiteJobSearch, notObserved } from './readings.js';

export const totalCount: DoctorCheck = {
  id: 'wm.totalCount',
  point: 'total_count on task and job lists',
  async run(ctx) {
    const r = await firstSiteJobSearch(ctx);
    if ('finding' in r) return r.finding;
    const { site, jobs } = r;
    const parts = [
      `job search: ${jobs.env?.totalCount !== undefined ? 'carries total_count' : 'no total_count'}`,
    ];
    const first = (dataOf(jobs) as Array<Record<string, unknown>> | undefined)?.[0];
    const jobId = first?.job_id;
    let tasksCarry: boolean | undefined;
    if (typeof jobId === 'number' || typeof jobId === 'string') {
      const tasks = await ctx.wmGet(
        site,
        `/api/job/${encodeURIComponent(site)}/${encodeURIComponent(String(jobId))}/recipient`,
        { time_zone: '+09:00' },
      );
      if (!tasks.err) {
        tasksCarry = tasks.env?.totalCount !== undefined;
        parts.push(`task list: ${tasksCarry ? 'carries total_count' : 'no total_count'}`);
      }
    } else parts.push('task list: not observed (no job)');
    const missing = jobs.env?.totalCount === undefined || tasksCarry === false;
    return {
      status: missing ? 'info' : 'ok',
      reading: `${parts.join('; ')}${missing ? ': lists without it say "more may exist" instead of a total' : ''}`,
    };
  },
};

export const pageCap: DoctorCheck = {
  id: 'pageCap',
  point: 'Page size caps (page_unit up to 1000)',
  async run(ctx) {
    const site = firstSite(ctx);
    const parts: string[] = [];
    let capped = false;
    if (ctx.wm && site) {
      const p = await ctx.wmGet(site, `/api/recipient/${encodeURIComponent(site)}`, {
        page_unit: 1000,
        time_zone: '+00:00',
      });
      const n = (dataOf(p) as unknown[] | undefined)?.length ?? 0;
      const total = p.env?.totalCount;
      if (p.err) parts.push(`recipients: ${failureText(p.err)}`);
      else if (total !== undefined && total > n && n < 1000) {
        capped = true;
        parts.push(`recipients: ${n} of ${total} on a page of 1000 asked (capped at ${n})`);
      } else
        parts.push(
          `recipients: not capped as far as seen (${n} on one page${total !== undefined ? ` of ${total}` : ''})`,
        );
    }
    if (ctx.svc && site) {
      const q = { site_id: site, page_unit: 1000 };
      const p1 = await ctx.svcGet('listLicenses', '/drm/license', q);
      const n = (dataOf(p1) as unknown[] | undefined)?.length ?? 0;
      if (p1.err) parts.push(`licenses: ${failureText(p1.err)}`);
      else if (n > 0 && n < 1000) {
        const p2 = await ctx.svcGet('listLicenses', '/drm/license', { ...q, page_index: 2 });
        const m = (dataOf(p2) as unknown[] | undefined)?.length ?? 0;
        if (m > 0) {
          capped = true;
          parts.push(`licenses: a second page after ${n} of 1000 asked (capped at ${n})`);
        } else parts.push(`licenses: not capped as far as seen (${n} in all)`);
      } else parts.push(`licenses: ${n === 0 ? 'none to observe' : 'not capped (1000 on one page)'}`);
    }
    if (parts.length === 0) return notObserved('no credentials');
    return {
      status: capped ? 'info' : 'ok',
      reading: `${parts.join('; ')}${capped ? ': the bot pages at the size the service gives' : ''}`,
    };
  },
};
