/**
 * The error types of the API module. Upper layers branch on the class (never on message text):
 * - ValidationError: input refused before anything was sent; `issues` say which field and why.
 * - ServiceError: HTTP 200 with error_code other than "0000"; carries the service's code and message.
 * - AuthError: HTTP 401 (credentials or token wrong, user unknown) after one token refresh.
 * - PermissionError: HTTP 403 (the account may not use this API).
 * - ProtocolError: a body that is not the documented shape; names the endpoint and the field.
 * - TransportError: network failure, timeout or 5xx/429 that outlived the retries.
 * No error message ever contains a secret: messages are built from codes, endpoints and fields.
 */
import type { NextStep } from '../next-step.js';

export interface ValidationIssue {
  /** The input field, as the user knows it ("name", "description", "site id", "line 12"...). */
  field: string;
  /** What is wrong and what to do, one sentence. */
  message: string;
}

export abstract class ApiError extends Error {
  abstract readonly kind: 'validation' | 'service' | 'auth' | 'permission' | 'protocol' | 'transport';
  /** Logical endpoint name, e.g. "wm.registerRecipients" or "svc.listLicenses". */
  readonly endpoint: string;
  constructor(endpoint: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.endpoint = endpoint;
    this.name = new.target.name;
  }
}

export class ValidationError extends ApiError {
  readonly kind = 'validation' as const;
  readonly issues: ValidationIssue[];
  constructor(endpoint: string, issues: ValidationIssue[]) {
    super(endpoint, issues.map((i) => `${i.field}: ${i.message}`).join('; '));
    this.issues = issues;
  }
}

export class ServiceError extends ApiError {
  readonly kind = 'service' as const;
  readonly code: string;
  readonly serviceMessage: string;
  /**
   * The HTTP status when the error envelope came with a 4xx (a service that says "not found" or
   * "bad parameter" with both); undefined for the documented HTTP 200 envelope.
   */
  readonly httpStatus: number | undefined;
  constructor(endpoint: string, code: string, serviceMessage: string, httpStatus?: number) {
    super(endpoint, `${endpoint} failed with error_code ${code}: ${serviceMessage}`);
    this.code = code;
    this.serviceMessage = serviceMessage;
    this.httpStatus = httpStatus;
  }
}

export class AuthError extends ApiError {
  readonly kind = 'auth' as const;
  readonly status = 401;
}

export class PermissionError extends ApiError {
  readonly kind = 'permission' as const;
  readonly status = 403;
}

/**
 * What a person can check after an answer that is not the API's, as a reason the Slack layer words
 * (src/slack/kit/context/errors.ts) for users: no answer where data was expected (`what`: "HTTP 204 (no
 * content)", "an empty body (HTTP 200)"), or a web page (its title, "" without one) instead of the
 * API, where an admin checks the base URL (`next`, the setup form).
 */
export type ProtocolAdvice =
  | { reason: 'no-answer'; what: string }
  | { reason: 'web-page'; title: string; next: NextStep };

export class ProtocolError extends ApiError {
  readonly kind = 'protocol' as const;
  /** Path of the offending field in the body ("data[3].job_status"), or "body". */
  readonly field: string;
  /** What a person can check (a web page instead of the API...), worded for users by the Slack layer. */
  readonly advice: ProtocolAdvice | undefined;
  constructor(endpoint: string, field: string, detail: string, advice?: ProtocolAdvice) {
    super(endpoint, `${endpoint} answered with an unexpected body at ${field}: ${detail}`);
    this.field = field;
    this.advice = advice;
  }
}

export class TransportError extends ApiError {
  readonly kind = 'transport' as const;
  /** HTTP status when one was received (5xx, 429, 404...), undefined for network errors/timeouts. */
  readonly status: number | undefined;
  readonly attempts: number;
  /**
   * True when the request may have reached the server and been processed (connection reset or
   * timeout after sending, 5xx): a POST/PUT may have taken effect and the caller must reconcile
   * (e.g. search for the names it tried to register). False when it certainly was not processed
   * (connection refused, connect timeout, 4xx other than 401/403). Default: true for network
   * failures (status undefined) and 5xx, false otherwise.
   */
  readonly ambiguous: boolean;
  /**
   * How long the service asked callers to wait (its last answer's `Retry-After`, 429 or 503),
   * in ms, capped by the HTTP layer (`retryAfterMaxMs`); undefined when it gave none. Callers that
   * come back on their own (the job watcher) wait at least this long.
   */
  readonly retryAfterMs: number | undefined;
  constructor(
    endpoint: string,
    message: string,
    status: number | undefined,
    attempts: number,
    cause?: unknown,
    ambiguous?: boolean,
    retryAfterMs?: number,
  ) {
    super(endpoint, message, { cause });
    this.status = status;
    this.attempts = attempts;
    this.ambiguous = ambiguous ?? (status === undefined || status >= 500);
    this.retryAfterMs = retryAfterMs;
  }
}

/** The service is busy (it refused for too many requests, HTTP 429): come back later. */
export function isBusy(e: TransportError): boolean {
  return e.status === 429;
}

/**
 * The service could not be reached or could not answer (no answer, a timeout, HTTP 429 or a
 * server error): a read may simply be tried again later.
 */
export function isUnavailable(e: TransportError): boolean {
  return e.status === undefined || isBusy(e) || e.status >= 500;
}

/** Which API an endpoint name (`wm.jobs.list`, `svc.getSites`) belongs to; undefined for another. */
export function apiOfEndpoint(endpoint: string): 'wm' | 'svc' | undefined {
  const head = endpoint.split('.')[0];
  return head === 'wm' || head === 'svc' ? head : undefined;
}

/**
 * The API layer's explanation of a refusal (401 / 403: what the server said, secrets masked, a
 * clock-skew note from its Date header, the SERVICE_JWT_* hint) without the endpoint prefix, as a
 * sentence to show a person.
 */
export function refusalExplanation(e: AuthError | PermissionError): string {
  const prefix = `${e.endpoint}: `;
  const m = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  return m.charAt(0).toUpperCase() + m.slice(1);
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** Why a read could not be done: the service's code and text, as it gave them (for a card line). */
export interface UnreadLatest {
  code: string;
  message: string;
}

/** The code and message of a failed read (e.g. of a product's latest plan request), for the card. */
export function unreadLatestOf(e: unknown): UnreadLatest {
  if (e instanceof ServiceError) return { code: e.code, message: e.serviceMessage };
  if (e instanceof PermissionError) return { code: 'HTTP 403', message: 'not permitted for this account' };
  // Anything else is told in words, never with the client's internals (parse paths, stacks).
  if (e instanceof ApiError) return { code: e.kind, message: 'the service did not answer as expected' };
  return { code: 'error', message: 'the service did not answer as expected' };
}

/**
 * A refusal of one product's read that should not fail a whole list of products: the service
 * answered (an error code the table does not know, a 403 for this one API). Transport failures and
 * protocol errors are not: the whole section is unavailable then.
 */
export function isPerItemRefusal(e: unknown): e is ServiceError | PermissionError {
  return e instanceof ServiceError || e instanceof PermissionError;
}
