import type { ErrorName, FieldError, OAuthErrorBody, Problem } from './types.js';

export interface PunchclockErrorInit {
  operation: string;
  status: number;
  error: string;
  code?: number | null;
  title?: string | null;
  detail?: string | null;
  errors?: FieldError[];
  correlationId?: string | null;
  retryAfterSeconds?: number | null;
  body?: Problem | OAuthErrorBody | null;
}

/**
 * An error answer of the API. `error` is the stable name to match on (`already_clocked_in`,
 * `validation_failed`, `invalid_client`, …); `errors` lists the fields of a 422. Problem documents
 * (`application/problem+json`) and the token endpoint's OAuth errors (`error`, `error_description`)
 * both end up here; `body` holds the document as received. The message never carries a credential
 * or a token.
 */
export class PunchclockError extends Error {
  override readonly name = 'PunchclockError';
  /** The operation that failed, e.g. `recordClockEvent` or `issueToken`. */
  readonly operation: string;
  /** HTTP status. */
  readonly status: number;
  /** Stable snake_case error name; clients match on this, never on the text. */
  readonly error: ErrorName | (string & {});
  /** Stable numeric code of a problem document; null for OAuth errors and non-JSON answers. */
  readonly code: number | null;
  readonly title: string | null;
  /** Problem `detail`, or the OAuth `error_description`. Wording may change. */
  readonly detail: string | null;
  /** On a 422 `validation_failed`: one entry per offending field; otherwise empty. */
  readonly errors: FieldError[];
  /** Quote it to support. */
  readonly correlationId: string | null;
  /** `Retry-After` of a 429 that was not retried (retries exhausted). */
  readonly retryAfterSeconds: number | null;
  /** The error document as received (problem document or OAuth error), null when not JSON. */
  readonly body: Problem | OAuthErrorBody | null;

  constructor(init: PunchclockErrorInit) {
    const parts = [`${init.operation} failed: ${init.status} ${init.error}`];
    if (init.detail) parts.push(`: ${init.detail}`);
    if (init.errors && init.errors.length > 0)
      parts.push(` [${init.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}]`);
    if (init.correlationId) parts.push(` (correlation id ${init.correlationId})`);
    super(parts.join(''));
    this.operation = init.operation;
    this.status = init.status;
    this.error = init.error;
    this.code = init.code ?? null;
    this.title = init.title ?? null;
    this.detail = init.detail ?? null;
    this.errors = init.errors ?? [];
    this.correlationId = init.correlationId ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.body = init.body ?? null;
  }

  /** Builds the error of a non-2xx answer; `parsed` is the body as openapi-fetch parsed it. */
  static fromResponse(operation: string, response: Response, parsed: unknown): PunchclockError {
    const correlationHeader = response.headers.get('x-correlation-id');
    const retryAfter = retryAfterSeconds(response, Date.now);
    const doc = isRecord(parsed) ? parsed : null;
    if (doc && typeof doc.error === 'string') {
      if ('error_description' in doc || !('status' in doc)) {
        // OAuth 2.0 error of the token endpoint.
        return new PunchclockError({
          operation,
          status: response.status,
          error: doc.error,
          detail: stringOrNull(doc.error_description),
          correlationId: correlationHeader,
          retryAfterSeconds: retryAfter,
          body: doc as OAuthErrorBody,
        });
      }
      return new PunchclockError({
        operation,
        status: response.status,
        error: doc.error,
        code: typeof doc.code === 'number' ? doc.code : null,
        title: stringOrNull(doc.title),
        detail: stringOrNull(doc.detail),
        errors: Array.isArray(doc.errors) ? (doc.errors as FieldError[]) : [],
        correlationId: stringOrNull(doc.correlationId) ?? correlationHeader,
        retryAfterSeconds: retryAfter,
        body: doc as Problem,
      });
    }
    // Not an API error document (e.g. a proxy's HTML page): keep the status, never the body.
    return new PunchclockError({
      operation,
      status: response.status,
      error: 'http_error',
      detail: response.statusText || null,
      correlationId: correlationHeader,
      retryAfterSeconds: retryAfter,
    });
  }
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), null when absent or unreadable. */
export function retryAfterSeconds(response: Response, now: () => number): number | null {
  const value = response.headers.get('retry-after');
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now()) / 1000));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
