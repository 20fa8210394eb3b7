import { ApiError, validationError } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { isValidDate, isValidTimeZone } from '../domain/time-zone.js';

/** A one-line reason for an operator's bad input; the CLI prints it and exits non-zero. */
export function invalid(message: string): ApiError {
  return new ApiError('validation_failed', message);
}

export function requireText(value: string | undefined, what: string, max = 200): string {
  const text = value?.trim() ?? '';
  if (text === '') throw invalid(`${what} must not be empty`);
  if (text.length > max) throw invalid(`${what} must be at most ${max} characters`);
  return text;
}

export function requireTimeZone(value: string): string {
  if (!isValidTimeZone(value)) throw invalid(`unknown IANA time zone: ${value}`);
  return value;
}

export function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw invalid(`${what} must be a UUID: ${value}`);
  return value.toLowerCase();
}

export function requireDate(value: string, what: string): string {
  if (!isValidDate(value)) throw invalid(`${what} must be a date YYYY-MM-DD: ${value}`);
  return value;
}

export function requireEmail(value: string): string {
  const email = value.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) throw invalid(`not an email address: ${value}`);
  return email;
}

export function requireOnOff(value: string, what: string): boolean {
  if (value !== 'on' && value !== 'off') throw invalid(`${what} must be on or off`);
  return value === 'on';
}

/** Operations contract: a DATE means the start of that day in UTC; a date-time with an offset is taken as given. */
export function parseDateOrDateTime(value: string, what: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${requireDate(value, what)}T00:00:00.000Z`;
  const withOffset = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;
  const ms = Date.parse(value);
  if (!withOffset.test(value) || Number.isNaN(ms))
    throw invalid(`${what} must be a date or a date-time with offset`);
  return new Date(ms).toISOString();
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError('not_found', `unknown ${what}: ${id}`);
}

/**
 * Runs one of the admin services' own parsers on one field: its refusal becomes a 422 naming the
 * field, so the console can show it next to the input. The service checks the same again.
 */
export function checkField(field: string, parse: () => unknown): void {
  try {
    parse();
  } catch (error) {
    if (error instanceof ApiError && error.errorName === 'validation_failed' && error.fieldErrors === null)
      throw validationError([{ field, message: error.detail ?? error.message, code: 'invalid' }]);
    throw error;
  }
}

export function notInYourCompany(what: string): ApiError {
  return new ApiError('not_found', `no ${what} with this id in your company`);
}
