import { type ApiError, validationError } from '../domain/errors.js';

/** A page of a cursor-paginated listing (spec, Pagination). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** 422 for a cursor that is not one of this listing (forged, of another company, other filters). */
export function invalidCursor(listing = 'listing'): ApiError {
  return validationError([
    { field: 'cursor', message: `is not a cursor of this ${listing}`, code: 'invalid_cursor' },
  ]);
}
