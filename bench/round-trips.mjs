#!/usr/bin/env node
// Round trips of one keyed punch to PostgreSQL (issue 32, item 3), counted on the wire.
//
//   node bench/round-trips.mjs [--punches=5]
//
// Run after a build. Starts the real server on a fresh PostgreSQL database through a TCP relay of this
// script's own that counts, per connection, the messages that end a round trip in PostgreSQL's
// frontend protocol: a simple Query ('Q') or a Sync ('S') of the extended protocol; a simple query
// whose text is `begin` opens a transaction there and `commit` / `rollback` closes it (the only text
// read). Then sends `--punches` keyed punches one at a time (clock-in, clock-out, …), each in a quiet
// moment, and prints, per punch, every transaction that ran in its window with its round trips from
// BEGIN to COMMIT included (the punch's own, and on PostgreSQL the after-commit numbering round), and
// the round trips outside any transaction (the token's principal check, background jobs).
import { createConnection, createServer } from 'node:net';
import { commandLine } from './lib/cli.mjs';
import { bulkEmployees, createTenant, openStore } from './lib/provision.mjs';
import { createDatabase, startApi } from './lib/server.mjs';
import { fetchToken } from './lib/token.mjs';

const { option } = commandLine();
const punches = Math.max(1, Number(option('punches', 5)));
const show = option('show', 'false') !== 'false'; // --show=true: print each round trip's statements
const log = (...parts) => process.stdout.write(`${parts.join(' ')}\n`);

/** A relay to `target` counting each connection's round trips in `counts` (connection number → count). */
async function relay(target) {
  const counts = new Map();
  const transactions = [];
  const transactionStatements = [];
  let next = 0;
  const server = createServer((client) => {
    const id = next++;
    counts.set(id, 0);
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    let buffer = Buffer.alloc(0);
    let started = false; // the startup message has no type byte
    let open = null; // round trips of the transaction open on this connection
    const named = new Map(); // prepared statement name → its text (Parse is sent once per connection)
    let pending = []; // the statements of the round trip being sent (until its Sync)
    let opened = []; // the transaction's round trips, each its statements
    client.on('data', (chunk) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 4) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          // SSLRequest / GSSENCRequest are answered before the real startup message.
          if (code !== 80877103 && code !== 80877104) started = true;
          continue;
        }
        if (buffer.length < 5) break;
        const length = buffer.readInt32BE(1);
        if (buffer.length < length + 1) break;
        const type = String.fromCharCode(buffer[0]);
        if (type === 'P') {
          const end = buffer.indexOf(0, 5);
          const name = buffer.toString('utf8', 5, end);
          const text = buffer.toString('utf8', end + 1, buffer.indexOf(0, end + 1));
          if (name) named.set(name, text);
          else pending.push(text);
        } else if (type === 'B') {
          const portalEnd = buffer.indexOf(0, 5);
          const name = buffer.toString('utf8', portalEnd + 1, buffer.indexOf(0, portalEnd + 1));
          if (name) pending.push(named.get(name) ?? `(statement ${name})`);
        }
        if (type === 'Q' || type === 'S') {
          if (type === 'Q') pending.push(buffer.toString('utf8', 5, length).replace(/\0$/, ''));
          const statements = pending;
          pending = [];
          const text = type === 'Q' ? buffer.toString('utf8', 5, length).trim().toLowerCase() : '';
          if (text.startsWith('begin')) {
            open = 0;
            opened = [];
          }
          if (open === null) counts.set(id, counts.get(id) + 1);
          else {
            open++;
            opened.push(statements);
          }
          if (open !== null && (text.startsWith('commit') || text.startsWith('rollback'))) {
            transactions.push(open);
            transactionStatements.push(opened);
            open = null;
          }
        }
        buffer = buffer.subarray(length + 1);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    counts,
    transactions,
    transactionStatements,
    close: () => server.close(),
  };
}

const database = await createDatabase('postgres', 'bench_round_trips');
let api;
let proxy;
try {
  const { store, ctx, close } = await openStore(database.url);
  const tenant = await createTenant(ctx, 'Round trips');
  const [employee] = await bulkEmployees(store, tenant, 1, { prefix: 'RT' });
  await close();
  const target = new URL(database.url);
  proxy = await relay(target);
  const relayed = new URL(database.url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(proxy.port);
  api = await startApi(relayed.toString());
  const token = await fetchToken(api.url, tenant.key.clientId, tenant.key.secret);
  const start = Date.now() - 3_600_000;
  const punch = (i) =>
    fetch(`${api.url}/api/public/v1/time-clock/events`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': `rt-${i}`,
      },
      body: JSON.stringify({
        employee: { id: employee.id },
        type: 'toggle',
        occurredAt: new Date(start + i * 60_000).toISOString(),
      }),
    });
  // Warm-up: connections opened, statements prepared (named statements are parsed once per connection).
  for (let i = 0; i < 20; i++) await (await punch(i)).text();
  for (let i = 20; i < 20 + punches; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const before = new Map(proxy.counts);
    const done = proxy.transactions.length;
    const response = await punch(i);
    const body = await response.json();
    await new Promise((r) => setTimeout(r, 50));
    const outside = [...proxy.counts].reduce((sum, [id, n]) => sum + n - (before.get(id) ?? 0), 0);
    const ran = proxy.transactions.slice(done);
    log(
      `punch ${i} (${response.status} ${body.type}): transactions of ${ran.join(' and ')} round trips (BEGIN and COMMIT included); outside transactions: ${outside}`,
    );
    if (show)
      for (const trips of proxy.transactionStatements.slice(done))
        trips.forEach((statements, n) =>
          log(`  ${n + 1}. ${statements.map((t) => t.replace(/\s+/g, ' ').slice(0, 160)).join(' ; ')}`),
        );
  }
} finally {
  await api?.stop();
  proxy?.close();
  await database.drop();
}
