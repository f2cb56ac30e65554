/**
 * Shared pieces of the Service API domain layer: endpoint names for errors, the refusal error,
 * zod-to-ValidationError conversion, and parsers for the codes users type (service, site id,
 * paging). Nothing here knows about Slack.
 */
import { z } from 'zod';
import { SERVICE_CODE, type ServiceCode } from '../../api/codes.js';
import { ValidationError, type ValidationIssue } from '../../api/errors.js';
import type { DateRange, PageQuery, SvcPage } from '../../api/types.js';
import {
  checkDate,
  checkDateRange,
  checkPageIndex,
  checkPageUnit,
  checkSiteId,
  LIMITS,
  passes,
} from '../../api/validate.js';
import type { StepSentence } from '../../next-step.js';
import { knownZone, utcDay, zonedTimeToEpoch } from '../../time.js';

/** Logical endpoint name used in errors raised by this layer, e.g. "ops.plan.cancel". */
export function opsEndpoint(name: string): string {
  return `ops.${name}`;
}

/**
 * Why an operation was refused before (or instead of) calling the service because of the current
 * state, not because of a malformed input. Upper layers branch on `reason`, never on the text.
 */
export type RefusalReason =
  /** A plan request for this site and service is already pending (ST001). */
  | 'alreadyPending'
  /** Cancel asked while the latest request is not pending. */
  | 'notPending'
  /** Cancel asked for a request id that is no longer the latest request. */
  | 'requestChanged'
  /** Cancel asked but the site/service has no request at all. */
  | 'noRequest'
  /** Cancel asked without a request id and the latest request could not be read. */
  | 'latestUnread'
  /** Activate/deactivate/change group to the state the member is already in. */
  | 'alreadyInState'
  /** The sub-member does not exist. */
  | 'memberNotFound'
  /** The action makes no sense in the product's current status (resume while in service...). */
  | 'notApplicable';

/**
 * A refusal based on state. It extends ValidationError on purpose: every renderer that already
 * shows a ValidationError ("field: what to do") shows a refusal correctly, and nothing was sent.
 */
export class RefusedError extends ValidationError {
  readonly reason: RefusalReason;
  constructor(endpoint: string, reason: RefusalReason, field: string, message: string | StepSentence) {
    super(endpoint, [issueOf(field, message)]);
    this.reason = reason;
  }
}

/**
 * An issue whose sentence names a next step (a command): `sentence` is worded by the Slack layer
 * (src/slack/kit/blocks/next-step.ts `issueText`); `message` names the step by its action, for logs.
 */
export interface StepIssue extends ValidationIssue {
  sentence: StepSentence;
}

function issueOf(field: string, message: string | StepSentence): ValidationIssue | StepIssue {
  if (typeof message === 'string') return { field, message };
  return {
    field,
    message: `${message.before}the ${message.step.do} command${message.after}`,
    sentence: message,
  };
}

export function invalid(endpoint: string, field: string, message: string | StepSentence): never {
  throw new ValidationError(endpoint, [issueOf(field, message)]);
}

/** Turns zod issues into a ValidationError whose fields are the input's names. */
export function zodToValidation(endpoint: string, error: z.ZodError): ValidationError {
  const issues: ValidationIssue[] = error.issues.map((i) => ({
    field: i.path.length > 0 ? i.path.map(String).join('.') : 'input',
    message: i.message,
  }));
  return new ValidationError(endpoint, issues);
}

/** Parses with zod, throwing a ValidationError (never a ZodError) on failure. */
export function parseInput<S extends z.ZodType>(endpoint: string, schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw zodToValidation(endpoint, r.error);
  return r.data;
}

export function requireSiteId(endpoint: string, siteId: string): string {
  const finding = checkSiteId(siteId);
  if (finding) invalid(endpoint, 'site', finding);
  return siteId;
}

const SERVICE_ALIASES: Record<string, ServiceCode> = {
  drm: 'PD001',
  pd001: 'PD001',
  fwm: 'PD002',
  pd002: 'PD002',
};

/** `drm|fwm|PD001|PD002` (any case) to a service code; a clear error otherwise. */
export function parseServiceCode(input: string, endpoint = opsEndpoint('service')): ServiceCode {
  const code = SERVICE_ALIASES[input.trim().toLowerCase()];
  if (!code) {
    invalid(
      endpoint,
      'service',
      `"${input.slice(0, 20)}" is not a product: use drm or fwm (or the codes PD001, PD002).`,
    );
  }
  return code;
}

export function serviceLabel(code: string): string {
  return (SERVICE_CODE as Record<string, string>)[code] ?? code;
}

/** User-facing paging input: page number (from 1) and page size (1..1000). */
export interface PageInput {
  page?: number;
  pageSize?: number;
}

export function toPageQuery(endpoint: string, input: PageInput): PageQuery {
  const q: PageQuery = {};
  const issues: ValidationIssue[] = [];
  if (input.page !== undefined) {
    if (passes(issues, 'page', checkPageIndex(input.page))) q.pageIndex = input.page;
  }
  if (input.pageSize !== undefined) {
    if (passes(issues, 'page size', checkPageUnit(input.pageSize))) q.pageUnit = input.pageSize;
  }
  if (issues.length > 0) throw new ValidationError(endpoint, issues);
  return q;
}

/**
 * The reader's `from:`/`to:` days and what was asked of the service for them. The Service API
 * filters by UTC day (its times are UTC, `reg_dt` "UTC +00:00") and has no time-zone parameter,
 * so a reader's day in another zone spans two UTC days: the query asks for the UTC days that
 * cover the reader's range, and lists with a time per row (licenses, packaging) keep only the rows
 * inside it (`inReaderRange`), so what is shown is exactly the reader's days. Counts the service
 * sums per UTC day (users, devices, content ids) cannot be cut: the reply says which UTC days
 * they cover.
 */
export interface ReaderDays {
  /** The reader's IANA zone (Slack users.info tz). */
  zone: string;
  /** The reader's days, yyyy-MM-dd, as given. */
  from?: string;
  to?: string;
  /** The UTC days sent to the service (they cover the reader's days). */
  utcFrom?: string;
  utcTo?: string;
  /** The reader's range as instants: [startMs, endMs). */
  startMs?: number;
  endMs?: number;
}

/** The zod fields of a `from:`/`to:` filter in the reader's zone (every list that takes days). */
export const readerDateFields = {
  from: z.string().optional(),
  to: z.string().optional(),
  /** The reader's IANA zone: `from`/`to` are their days (see `ReaderDays`). Default UTC. */
  timeZone: z.string().max(64).optional(),
};

const DAY_MS = 24 * 3600 * 1000;

/** The reader's days in `zone` as instants and the covering UTC days (dates already checked). */
export function readerDays(f: DateRange, zone: string): ReaderDays {
  const r: ReaderDays = { zone };
  if (f.from !== undefined) {
    r.from = f.from;
    r.startMs = zonedTimeToEpoch(`${f.from}T00:00:00`, zone);
    r.utcFrom = utcDay(r.startMs);
  }
  if (f.to !== undefined) {
    r.to = f.to;
    // The end of the reader's day: the start of the next one (a DST day may be 23 or 25 hours).
    const next = utcDay(Date.parse(`${f.to}T12:00:00Z`) + DAY_MS);
    r.endMs = zonedTimeToEpoch(`${next}T00:00:00`, zone);
    r.utcTo = utcDay(r.endMs - 1);
  }
  return r;
}

/** True when the instant is inside the reader's range (a row without a time is kept). */
export function inReaderRange(days: ReaderDays | undefined, epochMs: number | null): boolean {
  if (!days || epochMs === null) return true;
  if (days.startMs !== undefined && epochMs < days.startMs) return false;
  if (days.endMs !== undefined && epochMs >= days.endMs) return false;
  return true;
}

/**
 * The user's `from:`/`to:` days into a list query: each a valid yyyy-MM-dd, `from` not after
 * `to` (ValidationError naming the field otherwise). The days are the reader's, in `zone`
 * (default UTC); the query gets the UTC days that cover them (see `ReaderDays`). Returns the
 * reader's days when a date was given.
 */
export function applyDates(
  endpoint: string,
  f: DateRange,
  q: DateRange,
  zone?: string,
): ReaderDays | undefined {
  if (f.from !== undefined) {
    const e = checkDate(f.from);
    if (e) invalid(endpoint, 'from', e);
  }
  if (f.to !== undefined) {
    const e = checkDate(f.to);
    if (e) invalid(endpoint, 'to', e);
  }
  const range = checkDateRange(f.from, f.to);
  if (range) invalid(endpoint, 'from', range);
  if (f.from === undefined && f.to === undefined) return undefined;
  const days = readerDays(f, knownZone(zone));
  if (days.utcFrom !== undefined) q.from = days.utcFrom;
  if (days.utcTo !== undefined) q.to = days.utcTo;
  return days;
}

/** One page as the Slack side needs it. */
export interface PageResult<T> {
  items: T[];
  page: number;
  pageSize: number;
  /**
   * The Service API gives no total count (`count` is the number of items in this page), so
   * "more" is inferred: a full page means there may be another one. A last page that happens
   * to be exactly full shows one extra, empty, "next" page: the safe side of the guess.
   */
  hasMore: boolean;
  /** The reader's date range, when one was given (`exact`: rows outside it were left out). */
  dates?: ReaderDays & { exact: boolean };
}

export function toPageResult<T, U = T>(page: SvcPage<T>, map?: (t: T) => U): PageResult<U> {
  const items = map ? page.items.map(map) : (page.items as unknown as U[]);
  const pageSize = page.pageUnit || LIMITS.pageUnitDefault;
  return { items, page: page.pageIndex || 1, pageSize, hasMore: page.items.length >= pageSize };
}
