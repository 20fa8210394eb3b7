import type { Socket } from 'node:net';
import pg from 'pg';
import { PIPELINED_MARK, statementNameOf } from './prepared.js';

type PoolClient = pg.PoolClient;
type QueryResult = pg.QueryResult;

/** The part of a pool Kysely's PostgreSQL dialect uses. */
export interface PostgresPool {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
  /** Its size, in connections. */
  readonly max: number;
}

const ACKNOWLEDGED = (command: string): QueryResult =>
  ({ command, rowCount: null, rows: [], oid: 0, fields: [] }) as unknown as QueryResult;

class TransactionRolledBack extends Error {
  constructor(command: string) {
    super(`the transaction was not committed (the server answered ${command})`);
  }
}

/**
 * How this service talks to PostgreSQL, for the API's store and the benchmark's floor alike:
 *
 * - Statement texts of prepared queries (prepared.ts) run as named statements: each connection parses
 *   and plans them once, then only binds and executes. Every other query is sent as before.
 * - The messages of a query (bind, execute, sync; parse the first time) leave in one write. pg writes
 *   each message separately, and the first one went out alone, waking the server for a partial query:
 *   two system calls and two wake-ups per statement on the hot paths, where these dominate.
 * - Inside a transaction, statements whose answer nobody awaits are pipelined (pg's pipeline mode):
 *   `BEGIN` travels with the transaction's first statement, and pipelined writes (see
 *   `executePipelined` in prepared.ts) with whatever follows them, the `COMMIT` included. A
 *   pipelined statement that fails aborts the transaction on the server; its error is then what the
 *   next awaited statement, or the commit, throws, so nothing is ever committed past a failure.
 */
export function createPostgresPool(connectionString: string, max: number): PostgresPool {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: 5000,
    pipeline: true,
  } as pg.PoolConfig);
  // An idle client losing its server connection must not crash the process.
  pool.on('error', () => {});
  const wrapped = new WeakMap<PoolClient, PoolClient>();
  const wrap = (client: PoolClient): PoolClient => {
    let proxy = wrapped.get(client);
    if (proxy === undefined) {
      const connection = pipelined(client);
      proxy = Object.create(client, {
        query: { value: connection.query },
        release: {
          value: (error?: Error | boolean) => {
            connection.reset();
            client.release(error);
          },
        },
      }) as PoolClient;
      wrapped.set(client, proxy);
    }
    return proxy;
  };
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
    max,
  };
}

type QueryConfig = { name?: string; text: string; values?: unknown[] };

function pipelined(client: PoolClient) {
  const send = client.query.bind(client) as (
    config: QueryConfig | string,
    values?: unknown[],
  ) => Promise<QueryResult>;
  const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  let corked = false;
  let inTransaction = false;
  /** Sent, not yet answered, and not awaited by anyone: BEGIN and pipelined writes. */
  let unconfirmed: Promise<QueryResult>[] = [];
  /** The first failure of an unconfirmed statement in this transaction. */
  let failure: unknown = null;

  // Everything sent in one run of the event loop leaves in a single write.
  const coalesce = () => {
    if (corked || !stream.writable) return;
    stream.cork();
    corked = true;
    process.nextTick(() => {
      corked = false;
      stream.uncork();
    });
  };
  const submit = (
    text: string,
    values: unknown[] | undefined,
    name: string | undefined,
  ): Promise<QueryResult> => {
    coalesce();
    if (name !== undefined) return send({ name, text, values });
    return values === undefined ? send(text) : send(text, values);
  };
  const track = (sent: Promise<QueryResult>) => {
    const tracked = sent.catch((error: unknown) => {
      failure ??= error;
      throw error;
    });
    tracked.catch(() => {});
    unconfirmed.push(tracked);
  };
  /** Waits for the unconfirmed statements sent before; throws the first failure among them. */
  const confirm = async (): Promise<void> => {
    const pending = unconfirmed;
    unconfirmed = [];
    await Promise.allSettled(pending);
    if (failure !== null) throw failure;
  };

  const query = (config: QueryConfig | string, parameters?: unknown[]): Promise<QueryResult> => {
    const text = typeof config === 'string' ? config : config.text;
    const values = typeof config === 'string' ? parameters : config.values;
    const name = typeof config === 'string' ? statementNameOf(text) : config.name;
    const command = text.length <= 8 ? text.toLowerCase() : '';
    if (command === 'begin' && !inTransaction && unconfirmed.length === 0) {
      inTransaction = true;
      failure = null;
      track(submit(text, values, name));
      return Promise.resolve(ACKNOWLEDGED('BEGIN'));
    }
    if (command === 'commit' || command === 'rollback') {
      const ending = submit(text, values, name);
      inTransaction = false;
      return (async () => {
        try {
          await confirm();
        } catch (error) {
          // Nothing was committed: the server aborted the transaction at the failure.
          await ending.catch(() => {});
          if (command === 'rollback') return ending;
          throw error;
        } finally {
          failure = null;
        }
        const result = await ending;
        if (command === 'commit' && result.command !== 'COMMIT')
          throw new TransactionRolledBack(result.command);
        return result;
      })();
    }
    if (inTransaction && text.endsWith(PIPELINED_MARK)) {
      if (failure !== null) return Promise.reject(failure);
      track(submit(text, values, name));
      return Promise.resolve(ACKNOWLEDGED('PIPELINED'));
    }
    const answer = submit(text, values, name);
    if (unconfirmed.length === 0 && failure === null) return answer;
    return (async () => {
      try {
        await confirm();
      } catch (error) {
        answer.catch(() => {});
        throw error;
      }
      return answer;
    })();
  };
  // A client goes back to the pool between transactions; whatever happened, it starts afresh.
  const reset = () => {
    inTransaction = false;
    unconfirmed = [];
    failure = null;
  };
  return { query, reset };
}
