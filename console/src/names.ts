/**
 * How the console names people and weekdays, in one place: a person by their name, else their email
 * address (else their external id: the roster shows no emails to a planner without 47 or 52); the weekdays as the server spells them (the company's `workweekStart`), Monday first.
 */

export interface NamedPerson {
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  externalId?: string | null;
}

/** "Ada Lovelace", "Ada", or the email address (else the external id) when the person has no name. */
export function personName(person: NamedPerson): string {
  return (
    [person.firstName, person.lastName].filter(Boolean).join(' ') ||
    person.email ||
    person.externalId ||
    'Unnamed employee'
  );
}

/** The weekdays as the API spells them, Monday first (ISO order). */
export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;

/** "Monday" for "monday". */
export function weekdayLabel(day: string): string {
  return day.charAt(0).toUpperCase() + day.slice(1);
}
