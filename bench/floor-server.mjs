#!/usr/bin/env node
// The floor: a bare Fastify server on the same database as the API under test, doing the same
// storage work per scenario and nothing else: no authentication, no validation (no lookups of the
// employee, schedule, open session, locks or overlaps), no idempotency record, no response schema,
// raw drivers instead of Kysely. Writes: the time entry (insert, or the update closing the open
// session) and its audit row, in one transaction, as the API commits them. Reads: the same indexed
// select. Tokens: the key's select and last-use stamp, and an ES256 JWT signed as the API signs it (the
// specification requires a signed token). It serves the API's own paths so that the load generator
// sends the very same requests.
//
// Env: DATABASE_URL (sqlite:<path> | postgres://...), PORT (0 = any), HOST, PG_POOL_SIZE (default 10,
// the API's pool size). Prints `listening on http://host:port` when ready, stops on SIGTERM.
import { randomUUID } from 'node:crypto';
import { URLSearchParams } from 'node:url';
import Fastify from 'fastify';
import { exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose';
import { v7 as uuidv7 } from 'uuid';
import { loadConfig, resolveUrls, TOKEN_AUDIENCE } from '../dist/platform/config.js';
import { createPostgresPool } from '../dist/platform/db/postgres.js';
import { openSqlite } from '../dist/platform/db/sqlite.js';
import { startBackgroundCheckpoints } from '../dist/platform/db/sqlite-checkpoints.js';
import { PRINCIPAL_BY_KEY_ID } from './lib/floor-statements.mjs';

const url = process.env.DATABASE_URL ?? '';
const PREFIX = '/api/public/v1';

/**
 * A tiny driver facade: `one`, `all`, `run` with `?` placeholders on both databases, and `transaction`
 * (fn receives the same facade bound to the transaction; on SQLite it takes the write lock up front,
 * like the API's store).
 */
function openDatabase() {
  if (url.startsWith('sqlite:')) {
    // The very connection settings of the API's store (journal, synchronous, busy timeout, foreign
    // keys) and its checkpointing off the main thread.
    const path = url.slice('sqlite:'.length);
    const db = openSqlite(path);
    const checkpoints = startBackgroundCheckpoints(db, path);
    const cache = new Map();
    const prepare = (text) => {
      let statement = cache.get(text);
      if (!statement) cache.set(text, (statement = db.prepare(text)));
      return statement;
    };
    // Rows come as better-sqlite3's own objects, as the API reads them.
    const facade = {
      dialect: 'sqlite',
      settings: {
        synchronous: db.pragma('synchronous', { simple: true }),
        journal: db.pragma('journal_mode', { simple: true }),
      },
      one: async (text, params) => prepare(text).get(params),
      all: async (text, params) => prepare(text).all(params),
      run: async (text, params) => prepare(text).run(params).changes,
      // better-sqlite3 runs the statements synchronously: `fn` must not await anything but them.
      async transaction(fn) {
        prepare('begin immediate').run();
        try {
          const result = await fn(facade);
          prepare('commit').run();
          return result;
        } catch (error) {
          if (db.inTransaction) prepare('rollback').run();
          throw error;
        }
      },
      close: async () => {
        await checkpoints.stop();
        db.close();
      },
    };
    return facade;
  }
  // The API's own pool (src/platform/db/postgres.ts): a plain pg Pool of the same size and settings.
  const pool = createPostgresPool(url, Number(process.env.PG_POOL_SIZE ?? 10));
  // Every statement is a named (server-side prepared) statement, as the API's prepared queries are:
  // parsed and planned once per connection.
  const statements = new Map();
  const statement = (text, values) => {
    let s = statements.get(text);
    if (!s) {
      let i = 0;
      s = { name: `floor_${statements.size + 1}`, text: text.replace(/\?/g, () => `$${++i}`) };
      statements.set(text, s);
    }
    return { ...s, values };
  };
  const on = (client) => ({
    one: async (text, params) => (await client.query(statement(text, params))).rows[0],
    all: async (text, params) => (await client.query(statement(text, params))).rows,
    run: async (text, params) => (await client.query(statement(text, params))).rowCount,
  });
  // One checkout per statement outside a transaction, as Kysely does (cheaper than pool.query here).
  const checkedOut = (method) => async (text, params) => {
    const client = await pool.connect();
    try {
      return await on(client)[method](text, params);
    } finally {
      client.release();
    }
  };
  return {
    dialect: 'postgres',
    settings: { poolSize: pool.max },
    one: checkedOut('one'),
    all: checkedOut('all'),
    run: checkedOut('run'),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await fn(on(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

const db = openDatabase();
const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
  done(null, body),
);

const ENTRY_COLUMNS = [
  'id',
  'company_id',
  'employee_id',
  'work_date',
  'start_at',
  'end_at',
  'start_time',
  'end_time',
  'ends_next_day',
  'break_minutes',
  'net_seconds',
  'status',
  'source',
  'time_zone',
  'notes',
  'note',
  'clock_in_event',
  'clock_out_event',
  'created_by_type',
  'created_by_id',
  'closed_by_id',
  'created_at',
  'updated_at',
  'approved_at',
];
const INSERT_ENTRY = `insert into time_entries (${ENTRY_COLUMNS.join(', ')}) values (${ENTRY_COLUMNS.map(() => '?').join(', ')})`;
const CLOSE_SESSION =
  db.dialect === 'sqlite'
    ? `update time_entries set end_at = ?, end_time = ?, ends_next_day = ?, status = 'pending_approval',
         net_seconds = cast(round((julianday(?) - julianday(start_at)) * 86400) as integer),
         clock_out_event = ?, closed_by_id = ?, updated_at = ?
       where employee_id = ? and status = 'open' returning id`
    : `update time_entries set end_at = ?, end_time = ?, ends_next_day = ?, status = 'pending_approval',
         net_seconds = extract(epoch from (?::timestamptz - start_at::timestamptz))::integer,
         clock_out_event = ?, closed_by_id = ?, updated_at = ?
       where employee_id = ? and status = 'open' returning id`;

function entryValues(e) {
  return ENTRY_COLUMNS.map((c) => e[c] ?? null);
}

const BENCH_ACTOR = 'floor';

const INSERT_AUDIT = `insert into audit_log (id, company_id, actor_type, actor_id, action, target_type, target_id, details, created_at)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The audit row every recorded punch and shift writes (same columns and size as the API's). */
function auditValues(companyId, action, targetId, details, at) {
  return [
    uuidv7(),
    companyId,
    'api_key',
    BENCH_ACTOR,
    action,
    'time_entry',
    targetId,
    JSON.stringify(details),
    at,
  ];
}

// The API's signing key and claims (src/modules/auth/tokens.ts): the oldest row of signing_keys, the
// issuer the API derives from the same environment, its audience.
const ALGORITHM = 'ES256';
const TOKEN_LIFETIME_SECONDS = 900;
const ISSUER = resolveUrls(loadConfig(), 0).tokenIssuer;
const SIGNING_KEYS = 'select kid, private_jwk from signing_keys order by created_at, kid';

/*
 * Loaded on the first token request, not at start: the harness starts the API first, whose start
 * creates the key before it listens, so the floor finds it then whatever order the processes were
 * started in; the warm-up pays the one import. Should the table still be empty, the floor makes a key
 * as the API's init() does and then signs with the oldest, as every instance does. A failed load is
 * forgotten so that the next request tries again.
 */
let signingKey = null;
function loadSigningKey() {
  signingKey ??= (async () => {
    let rows = await db.all(SIGNING_KEYS, []);
    if (rows.length === 0) {
      const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
      const kid = randomUUID();
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: 'sig' };
      const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: ALGORITHM };
      await db.run(
        'insert into signing_keys (kid, algorithm, private_jwk, public_jwk, created_at) values (?, ?, ?, ?, ?)',
        [kid, ALGORITHM, JSON.stringify(privateJwk), JSON.stringify(publicJwk), new Date().toISOString()],
      );
      rows = await db.all(SIGNING_KEYS, []);
    }
    const row = rows[0];
    return { kid: row.kid, privateKey: await importJWK(JSON.parse(row.private_jwk), ALGORITHM) };
  })().catch((error) => {
    signingKey = null;
    throw error;
  });
  return signingKey;
}

// Token issuance: the key by client id with its company's switch (one select, as the API does), an
// ES256 JWT with the API's claims and key, the last-used stamp. No secret hashing.
app.post(`${PREFIX}/oauth/token`, async (request) => {
  const clientId = new URLSearchParams(request.body).get('client_id');
  const key = await db.one(
    'select k.*, c.api_access from api_keys k join companies c on c.id = k.company_id where k.client_id = ?',
    [clientId],
  );
  if (!key) return { error: 'invalid_client' };
  const { kid, privateKey } = await loadSigningKey();
  const iat = Math.floor(Date.now() / 1000);
  const accessToken = await new SignJWT({
    cid: key.company_id,
    pty: 'api_key',
    scope: JSON.parse(key.scopes).join(' '),
    client_id: key.client_id,
    iss: ISSUER,
    aud: TOKEN_AUDIENCE,
    sub: key.id,
    jti: randomUUID(),
    iat,
    exp: iat + TOKEN_LIFETIME_SECONDS,
  })
    .setProtectedHeader({ alg: ALGORITHM, kid, typ: 'at+jwt' })
    .sign(privateKey);
  await db.run('update api_keys set last_used_at = ? where id = ?', [new Date().toISOString(), key.id]);
  return { access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS };
});

// The per-request principal lookup (a primary-key select with the company joined).
app.get(`${PREFIX}/me`, async (request) => {
  const row = await db.one(PRINCIPAL_BY_KEY_ID, [request.headers['x-bench-key-id']]);
  return row;
});

// A clock_in inserts the open entry; a clock_out completes it with one update; either writes its
// audit row in the same transaction.
app.post(`${PREFIX}/time-clock/events`, async (request, reply) => {
  const { employee, type, occurredAt } = request.body;
  const companyId = request.headers['x-bench-company-id'];
  const at = new Date().toISOString();
  const instant = new Date(occurredAt).toISOString();
  const details = { employeeId: employee.id, sentType: type, occurredAt: instant };
  if (type === 'clock_in') {
    const entry = {
      id: uuidv7(),
      company_id: companyId,
      employee_id: employee.id,
      work_date: instant.slice(0, 10),
      start_at: instant,
      start_time: instant.slice(11, 19),
      ends_next_day: 0,
      status: 'open',
      source: 'time_clock',
      time_zone: 'UTC',
      clock_in_event: type,
      created_by_type: 'api_key',
      created_by_id: BENCH_ACTOR,
      created_at: at,
      updated_at: at,
    };
    await db.transaction(async (trx) => {
      await trx.run(INSERT_ENTRY, entryValues(entry));
      await trx.run(INSERT_AUDIT, auditValues(companyId, 'time_entry.clock_in', entry.id, details, at));
    });
    return reply.code(201).send({ timeEntryId: entry.id, type });
  }
  const closed = await db.transaction(async (trx) => {
    const row = await trx.one(CLOSE_SESSION, [
      instant,
      instant.slice(11, 19),
      0,
      instant,
      type,
      BENCH_ACTOR,
      at,
      employee.id,
    ]);
    if (row) await trx.run(INSERT_AUDIT, auditValues(companyId, 'time_entry.clock_out', row.id, details, at));
    return row;
  });
  return reply.code(closed ? 201 : 409).send({ timeEntryId: closed?.id ?? null, type });
});

// A completed shift is one insert, with its audit row in the same transaction.
app.post(`${PREFIX}/time-entries`, async (request, reply) => {
  const { employee, clockIn, clockOut, breakMinutes } = request.body;
  const companyId = request.headers['x-bench-company-id'];
  const at = new Date().toISOString();
  const start = new Date(clockIn).toISOString();
  const end = new Date(clockOut).toISOString();
  const entry = {
    id: uuidv7(),
    company_id: companyId,
    employee_id: employee.id,
    work_date: start.slice(0, 10),
    start_at: start,
    end_at: end,
    start_time: start.slice(11, 19),
    end_time: end.slice(11, 19),
    ends_next_day: start.slice(0, 10) === end.slice(0, 10) ? 0 : 1,
    break_minutes: breakMinutes ?? null,
    net_seconds: Math.floor((Date.parse(end) - Date.parse(start)) / 1000) - (breakMinutes ?? 0) * 60,
    status: 'pending_approval',
    source: 'api_shift',
    time_zone: 'UTC',
    created_by_type: 'api_key',
    created_by_id: BENCH_ACTOR,
    closed_by_id: BENCH_ACTOR,
    created_at: at,
    updated_at: at,
  };
  await db.transaction(async (trx) => {
    await trx.run(INSERT_ENTRY, entryValues(entry));
    await trx.run(
      INSERT_AUDIT,
      auditValues(
        companyId,
        'time_entry.create_shift',
        entry.id,
        { employeeId: employee.id, clockIn: start, clockOut: end },
        at,
      ),
    );
  });
  return reply.code(201).send({ timeEntryId: entry.id, type: 'shift' });
});

// One page of an employee's entries: the same indexed select as the API (limit + 1 to know hasMore).
app.get(`${PREFIX}/time-entries`, async (request) => {
  const q = request.query;
  const limit = Number(q.limit ?? 25);
  const rows = await db.all(
    `select id, work_date, start_time, end_time, ends_next_day, net_seconds, break_minutes, status, source, approved_at, created_at
       from time_entries where employee_id = ? and company_id = ? and work_date >= ? and work_date <= ?
      order by work_date, id limit ?`,
    [q.employeeId, request.headers['x-bench-company-id'], q.from, q.to, limit + 1],
  );
  const items = rows.slice(0, limit);
  return { items, hasMore: rows.length > limit };
});

// The columns the API's pages read (src/db/repositories: LIST_COLUMNS, EMPLOYEE_LIST_COLUMNS).
const EMPLOYEE_COLUMNS = 'id, external_id, first_name, last_name, email, status, department_id, position_id';

// A page of the company's employees after the cursor (here simply the last id).
app.get(`${PREFIX}/employees`, async (request) => {
  const q = request.query;
  const limit = Number(q.limit ?? 25);
  const rows = q.cursor
    ? await db.all(
        `select ${EMPLOYEE_COLUMNS} from employees where company_id = ? and deleted_at is null and id > ? order by id limit ?`,
        [request.headers['x-bench-company-id'], q.cursor, limit + 1],
      )
    : await db.all(
        `select ${EMPLOYEE_COLUMNS} from employees where company_id = ? and deleted_at is null order by id limit ?`,
        [request.headers['x-bench-company-id'], limit + 1],
      );
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { items, nextCursor: hasMore ? items.at(-1).id : null, hasMore };
});

app.get('/healthz', async () => ({ ok: true, settings: db.settings }));

const address = await app.listen({
  port: Number(process.env.PORT ?? 0),
  host: process.env.HOST ?? '127.0.0.1',
});
process.stdout.write(`floor ${db.dialect} ${JSON.stringify(db.settings)}\nlistening on ${address}\n`);
const stop = () => {
  app
    .close()
    .then(() => db.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
