import { type Database, serialWriters } from '../../platform/db/database.js';
import { hasPendingEvents, NUMBERING_LIMIT, numberPendingEvents } from './queries.js';

/*
 * The event sequencer (issue 32; docs/architecture.md, "The event log and the change feed"). On
 * PostgreSQL a change writes its events unnumbered (`pending_events`) and, once it has committed, asks
 * its own process's sequencer to number them (`afterCommit`); the writer's reply waits for that (so a
 * client that got its answer finds its event in the feed), at most WAIT_AFTER_COMMIT_MS. Every instance
 * also polls (POLL_MS, http/plugins/event-sequencer.ts) for events a dead process committed and never
 * numbered. Rounds of every instance take turns under one lock (numberPendingEvents); in-process state
 * here only coalesces requests into rounds, correctness rests on the lock and the commit.
 */
export const WAIT_AFTER_COMMIT_MS = 2000;
export const POLL_MS = 1000;

export class EventSequencer {
  private current: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly database: Database) {}

  /**
   * Resolves once a numbering round that began after this call has finished: every event committed
   * before the call is then numbered (unless that round failed). Calls during a round share one next
   * round.
   */
  drain(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.current) return this.start();
    const after = this.current.catch(() => undefined);
    this.queued = after.then(() => {
      this.queued = null;
      return this.start();
    });
    return this.queued;
  }

  /** A round if any event waits for its number (the poll: one indexed read when none does). */
  async drainIfPending(): Promise<void> {
    if (await hasPendingEvents(this.database.db)) await this.drain();
  }

  private start(): Promise<void> {
    const round = this.round().finally(() => {
      if (this.current === round) this.current = null;
    });
    this.current = round;
    return round;
  }

  private async round(): Promise<void> {
    for (;;) {
      const moved = await numberPendingEvents(this.database.db);
      if (moved < NUMBERING_LIMIT) return;
    }
  }
}

const sequencers = new WeakMap<Database, EventSequencer>();

/** This process's sequencer for `database`; null on SQLite, where a writer numbers its own events. */
export function sequencerOf(database: Database): EventSequencer | null {
  if (serialWriters(database.db)) return null;
  let sequencer = sequencers.get(database);
  if (!sequencer) {
    sequencer = new EventSequencer(database);
    sequencers.set(database, sequencer);
  }
  return sequencer;
}

/** The after-commit hook of a change that wrote pending events: numbers them, waiting a bounded time. */
export async function numberAfterCommit(database: Database): Promise<void> {
  const sequencer = sequencerOf(database);
  if (!sequencer) return;
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, WAIT_AFTER_COMMIT_MS);
    timer.unref();
  });
  try {
    await Promise.race([sequencer.drain().catch(() => undefined), bounded]);
  } finally {
    clearTimeout(timer);
  }
}
