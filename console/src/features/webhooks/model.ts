export interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  status: 'active' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WithSecret extends Endpoint {
  secret: string;
  previousSecretValidUntil?: string;
}

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  origin: 'event' | 'replay' | 'test';
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  statusCode: number | null;
  error: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** The event types an endpoint may ask for (the public API's list). */
export const EVENT_TYPES: [string, string][] = [
  ['time_entry.opened', 'a clock-in opened a time entry'],
  ['time_entry.completed', 'a time entry was completed'],
  ['time_entry.approved', 'a time entry was approved'],
  ['time_entry.rejected', 'a time entry was rejected'],
  ['time_entry.break_started', 'a break started'],
  ['time_entry.break_ended', 'a break ended'],
  ['day.confirmed', "an employee's day was confirmed"],
  ['employee.created', 'an employee was created'],
  ['employee.updated', 'an employee was changed'],
  ['employee.deleted', 'an employee was deleted'],
  ['absence.requested', 'an absence was requested'],
  ['absence.approved', 'an absence was approved'],
  ['absence.rejected', 'an absence request was rejected'],
  ['absence.cancelled', 'an absence was withdrawn or cancelled'],
];

/** A delivery's state as the badge words it. */
export const DELIVERY_STATUS: Record<string, string> = {
  succeeded: 'delivered',
  failed: 'failed',
  pending: 'pending_approval',
};

/** Deleting an endpoint or rotating its secret waits for a confirmation. */
export type Pending = { kind: 'delete' | 'rotate'; endpoint: Endpoint } | null;
