import { Type } from '@sinclair/typebox';
import { ERROR_CATALOGUE, type ErrorName } from '../../domain/errors.js';
import { ProblemSchema } from './common.js';

/** Errors any operation that reads a JSON body can meet before its own rules run. */
export const BODY_ERRORS: ErrorName[] = ['payload_too_large', 'unsupported_media_type'];

/**
 * Errors every bearer-token operation can answer: no or bad token, API access switched off for the
 * company (the token is no longer allowed anywhere), quota exhausted, server fault, database away for
 * a moment or its disk full (503 with Retry-After).
 */
const BEARER_ERRORS: ErrorName[] = [
  'invalid_token',
  'forbidden',
  'rate_limited',
  'internal_error',
  'service_unavailable',
  'storage_full',
];

/** Errors every admin operation can answer. */
const SERVER_FAULTS: ErrorName[] = ['internal_error', 'service_unavailable', 'storage_full'];

/**
 * Response schemas for `names`, grouped by status in the order given; each status's `error` is the enum
 * of its names, so the description tells clients exactly what to match on. Both APIs build theirs here.
 */
export function problemResponses(names: ErrorName[]) {
  const byStatus = new Map<number, ErrorName[]>();
  for (const name of new Set(names)) {
    const status = ERROR_CATALOGUE[name].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
  }
  const responses: Record<number, typeof ProblemSchema> = {};
  for (const [status, list] of byStatus) {
    responses[status] = Type.Object(
      {
        ...ProblemSchema.properties,
        error: Type.String({ enum: list, description: 'stable error name; match on this' }),
        code: Type.Integer({ enum: list.map((name) => ERROR_CATALOGUE[name].code) }),
      },
      { description: `Problem details; error: ${list.join(', ')}` },
    ) as unknown as typeof ProblemSchema;
  }
  return responses;
}

/** The problem responses of a bearer-token operation (public API): the bearer errors and `names`. */
export function errorResponses(names: ErrorName[]) {
  return problemResponses([...BEARER_ERRORS, ...names]);
}

/** The problem responses of an admin operation: `names` plus the server faults. */
export function adminErrors(names: ErrorName[]) {
  return problemResponses([...names, ...SERVER_FAULTS]);
}

/** Errors of an admin operation that needs a session; with `write`, also the CSRF check and a JSON body. */
export function sessionErrors(names: ErrorName[], write = false) {
  return adminErrors([
    'session_required',
    ...(write ? (['csrf_failed', 'payload_too_large', 'unsupported_media_type'] as ErrorName[]) : []),
    ...names,
  ]);
}
