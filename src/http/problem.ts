import { ApiError, ERROR_CATALOGUE, type ErrorName, type FieldError, problemType } from '../domain/errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string | null;
  instance: string | null;
  code: number;
  error: ErrorName;
  correlationId: string | null;
  errors: FieldError[] | null;
}

/**
 * The problem document of `error`. Without a `problemBase` (an answer made before any route is known,
 * to a request that is not even HTTP) its type is `about:blank` (RFC 9457 §4.2.1).
 */
export function problemBody(
  error: ApiError,
  context: { problemBase: string | null; instance: string | null; correlationId: string | null },
): ProblemBody {
  const entry = ERROR_CATALOGUE[error.errorName];
  return {
    type: context.problemBase === null ? 'about:blank' : problemType(context.problemBase, error.errorName),
    title: entry.title,
    status: entry.status,
    detail: error.detail,
    instance: context.instance,
    code: entry.code,
    error: error.errorName,
    correlationId: context.correlationId,
    errors: error.fieldErrors,
  };
}

/** The request path without its query string: problem `instance` and logs never carry query values. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export { ApiError };
