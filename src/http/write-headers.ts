import type { IncomingHttpHeaders } from 'node:http';
import { validationError } from '../domain/errors.js';
import { parseIdempotencyKey } from '../shared/idempotency-key.js';

/** Spec, Shared write headers: `true` is a dry run; `false` or absent is a real write; anything else is refused. */
export function parseDryRun(headers: IncomingHttpHeaders): boolean {
  const value = headers['x-service-dry-run'];
  if (value === undefined) return false;
  const text = Array.isArray(value) ? value.join(',') : value;
  const normalised = text.trim().toLowerCase();
  if (normalised === 'true') return true;
  if (normalised === 'false') return false;
  throw validationError([{ field: 'X-Service-Dry-Run', message: 'must be true or false', code: 'enum' }]);
}

export function readIdempotencyKey(headers: IncomingHttpHeaders): string | null {
  const value = headers['idempotency-key'];
  if (Array.isArray(value))
    throw validationError([{ field: 'Idempotency-Key', message: 'must be sent once', code: 'repeated' }]);
  const parsed = parseIdempotencyKey(value);
  if (!parsed.ok)
    throw validationError([{ field: 'Idempotency-Key', message: parsed.reason, code: 'invalid' }]);
  return parsed.key;
}
