import type { Database, Tx } from '../platform/db/database.js';

/** What the application's services share: the database (the unit of work) and the clock. */
export interface AppContext {
  readonly database: Database;
  /** Milliseconds since the epoch; injected so tests can pin time. */
  readonly now: () => number;
}

export interface Actor {
  type: 'api_key' | 'user' | 'cli';
  id: string | null;
}

export const CLI_ACTOR: Actor = { type: 'cli', id: null };

/** A person signed in to the console, as the actor of what they change. */
export function actorOf(person: { id: string }): Actor {
  return { type: 'user', id: person.id };
}

/** Runs `fn` (an admin operation, say) in one transaction of its own, with the clock read once. */
export function inTransaction<R>(ctx: AppContext, fn: (tx: Tx, now: number) => Promise<R>): Promise<R> {
  const now = ctx.now();
  return ctx.database.transaction((tx) => fn(tx, now));
}
