import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryId,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/** Whether `error` says the disk holding the database is full (SQLite SQLITE_FULL, PostgreSQL 53100). */
export function isStorageFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL' || code === '53100') return true;
  return error.cause !== undefined && isStorageFull(error.cause);
}

/** What the service knows of its database's room to write (readiness, metrics). */
export interface StorageState {
  readonly writable: boolean;
  /** Why not (the database's own message), null while writable. */
  readonly reason: string | null;
  /** Since when (ISO 8601), null while writable. */
  readonly since: string | null;
}

/**
 * Inserts that must succeed in a row, with no write refused for space between them, before the
 * database counts as writable again: on PostgreSQL a nearly full disk refuses the inserts that need a
 * new page and lets those that fit in a page with room through, and one of those alone proves nothing.
 */
const INSERTS_TO_RECOVER = 20;

/**
 * Follows whether writes find room: a write refused for space (a full disk) makes the database not
 * writable; INSERTS_TO_RECOVER inserts adding rows in a row, with no refusal between them, make it
 * writable again. Reads are not affected either way. A Kysely plugin, so that every insert of every caller counts; the refusals
 * are reported by the unit of work (database.ts), which sees every transaction's failure.
 */
export class StorageHealth implements KyselyPlugin {
  private state: StorageState = { writable: true, reason: null, since: null };
  private readonly inserts = new WeakSet<QueryId>();
  /** Inserts that added rows since the last refusal, while not writable. */
  private succeeded = 0;

  get current(): StorageState {
    return this.state;
  }

  refused(error: unknown, now: number): void {
    this.succeeded = 0;
    if (!this.state.writable) return;
    this.state = {
      writable: false,
      reason: error instanceof Error ? error.message : String(error),
      since: new Date(now).toISOString(),
    };
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (args.node.kind === 'InsertQueryNode') this.inserts.add(args.queryId);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.inserts.has(args.queryId) && (args.result.numAffectedRows ?? 0n) > 0n) this.insertsAdded(1);
    return args.result;
  }

  /**
   * `count` inserts added rows. Kysely's builders are seen above; a write plan (write-plan.ts), whose
   * SQL is its own and whose inserts PostgreSQL runs inside one SELECT, reports its own here.
   */
  insertsAdded(count: number): void {
    if (this.state.writable || count <= 0) return;
    this.succeeded += count;
    if (this.succeeded >= INSERTS_TO_RECOVER) this.state = { writable: true, reason: null, since: null };
  }
}
