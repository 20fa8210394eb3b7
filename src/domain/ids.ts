import { v7 as uuidv7 } from 'uuid';

/** Time-ordered UUIDs (v7) keep inserts at the right edge of the primary-key index. */
export function newId(): string {
  return uuidv7();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
