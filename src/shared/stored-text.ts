// NUL cannot be stored in PostgreSQL text (the query fails), and an unpaired surrogate is silently
// replaced by U+FFFD on the way to either database, so neither can be a stored external id.
const UNPAIRED_SURROGATE = /\p{Surrogate}/u;

/** Whether `value` comes back from either database exactly as written. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value);
}
