import type { Store } from '../db/database.js';

/** What every use case needs; the clock is injected so tests can pin time. */
export interface UseCaseContext {
  readonly store: Store;
  readonly now: () => number;
}

export interface Actor {
  type: 'api_key' | 'user' | 'cli';
  id: string | null;
}

export const CLI_ACTOR: Actor = { type: 'cli', id: null };

export function isoNow(ctx: UseCaseContext): string {
  return new Date(ctx.now()).toISOString();
}
