#!/usr/bin/env node
// What a GET /me that does only what the spec requires costs against the floor's bare route, on the
// embedded database (docs/performance.md, round 8). After `npm run build`:
//
//   node bench/me-minimum.mjs [--duration=8] [--warmup=4] [--rounds=2] [--connections=10] [--api-root=<dir>]
//
// Servers, each its own process on one SQLite file holding the demo company:
//   floor       the floor's route: the principal's select (the same statement), returned as is;
//   spec        the same, plus what every answer of the API carries: the correlation id and the five
//               rate-limit headers (the API's own builder) and the /me body (the API's own, with its
//               expiry formatted per request);
//   spec-hooks  the same, with a generated request id and the select and the correlation id in two
//               asynchronous onRequest hooks, as the API has them;
//   api         the API itself (`dist/cli/main.js serve` of this checkout, or of --api-root, e.g. another
//               build to compare; limits raised as in the benchmark).
// Rounds interleave the servers; each server's best round counts. Reported per server: requests/s,
// server CPU per request, and the ratio to the floor.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine } from './lib/cli.mjs';
import { PRINCIPAL_BY_KEY_ID } from './lib/floor-statements.mjs';
import { runLoad } from './lib/load.mjs';
import { startProcess } from './lib/processes.mjs';
import { fetchToken } from './lib/token.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PATH = '/api/public/v1/me';
const { option } = commandLine();

const variant = option('serve', null);
if (variant !== null) await serveVariant(variant);
else await compare();

async function serveVariant(name) {
  const { default: Fastify } = await import('fastify');
  const { openSqlite } = await import('../dist/platform/db/sqlite.js');
  const { rateLimitHeaders } = await import('../dist/http/plugins/rate-limit/headers.js');
  const db = openSqlite(process.env.DATABASE_URL.slice('sqlite:'.length));
  // better-sqlite3's own object rows, as the API reads them.
  const statement = db.prepare(PRINCIPAL_BY_KEY_ID);
  const keyId = process.env.BENCH_KEY_ID;
  const principal = async () => statement.get(keyId);
  const me = JSON.parse(process.env.BENCH_ME_BODY);
  const expiresAt = Date.parse(me.tokenExpiresAt);
  const limit = me.rateLimit.requestsPerMinute;
  let used = 0;
  const answer = (reply, id, row) => {
    used++;
    reply.headers({
      'x-correlation-id': id,
      ...rateLimitHeaders({ limit, remaining: limit - used, resetSeconds: 60 }, 60),
    });
    return {
      principal: me.principal,
      id: me.id,
      publicId: me.publicId,
      companyId: row.company_id,
      scopes: me.scopes.map((s) => ({ id: s.id, permission: s.permission, label: s.label })),
      tokenExpiresAt: new Date(expiresAt).toISOString(),
      rateLimit: { requestsPerMinute: limit, tokenRequestsPerMinute: me.rateLimit.tokenRequestsPerMinute },
      dryRunHeader: me.dryRunHeader,
    };
  };
  const app = Fastify(name === 'spec-hooks' ? { genReqId: () => randomUUID() } : {});
  if (name === 'floor') app.get(PATH, async () => principal());
  else if (name === 'spec')
    app.get(PATH, async (request, reply) => answer(reply, request.id, await principal()));
  else if (name === 'spec-hooks') {
    app.decorateRequest('row', null);
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-correlation-id', request.id);
    });
    const onRequest = async (request) => {
      request.row = await principal();
    };
    app.get(PATH, { onRequest }, async (request, reply) => answer(reply, request.id, request.row));
  } else throw new Error(`unknown variant ${name}`);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`listening on ${url}\n`);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
}

async function compare() {
  const settings = {
    duration: Number(option('duration', 8)),
    warmup: Number(option('warmup', 4)),
    rounds: Number(option('rounds', 2)),
    connections: Number(option('connections', 10)),
  };
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-me-minimum-'));
  const databaseUrl = `sqlite:${join(dir, 'me.sqlite')}`;
  const servers = [];
  try {
    const env = {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000',
    };
    // The API seeds the demo company and prints its key; it listens once it has done so.
    const apiRoot = option('api-root', ROOT);
    const api = await startProcess(
      'api',
      [join(apiRoot, 'dist/cli/main.js'), 'serve', '--demo-if-empty'],
      env,
    );
    servers.push(api);
    const { clientId, secret } = demoKeyOf(api);
    const token = await fetchToken(api.url, clientId, secret);
    const headers = { authorization: `Bearer ${token}` };
    const meResponse = await fetch(`${api.url}${PATH}`, { headers });
    if (meResponse.status !== 200) throw new Error(`GET /me answered ${meResponse.status}`);
    const meBody = await meResponse.json();
    const variantEnv = { ...env, BENCH_KEY_ID: meBody.id, BENCH_ME_BODY: JSON.stringify(meBody) };
    const order = [];
    for (const label of ['floor', 'spec', 'spec-hooks']) {
      const server = await startProcess(
        label,
        [fileURLToPath(import.meta.url), `--serve=${label}`],
        variantEnv,
      );
      servers.push(server);
      order.push({ label, server });
    }
    order.push({ label: 'api', server: api });
    const requests = [{ method: 'GET', path: PATH, headers }];
    const run = (server, duration, title) =>
      runLoad({
        url: server.url,
        requests,
        connections: settings.connections,
        duration,
        pid: server.pid,
        title,
      });
    for (const { label, server } of order) await run(server, settings.warmup, `${label}-warm`);
    const best = new Map();
    for (let round = 1; round <= settings.rounds; round++)
      for (const { label, server } of order) {
        const result = await run(server, settings.duration, `${label}-${round}`);
        if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} answers were not 2xx`);
        console.log(
          `  round ${round} ${label.padEnd(10)} ${Math.round(result.rps)} req/s, server CPU ${result.serverCpuUsPerRequest.toFixed(0)} µs/req, steal ${Math.round((result.stealShare ?? 0) * 100)}%`,
        );
        if (!best.has(label) || result.rps > best.get(label).rps) best.set(label, result);
      }
    const floor = best.get('floor');
    console.log('\nserver      best req/s  its CPU µs/req  of the floor');
    for (const { label } of order) {
      const r = best.get(label);
      console.log(
        `${label.padEnd(10)}  ${String(Math.round(r.rps)).padStart(10)}  ${r.serverCpuUsPerRequest.toFixed(0).padStart(14)}  ${String(Math.round((100 * r.rps) / floor.rps)).padStart(11)}%`,
      );
    }
  } finally {
    for (const server of servers.reverse()) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The demo key the API printed on its first start. */
function demoKeyOf(api) {
  const text = api.stdout();
  const clientId = /client id: (\S+)/.exec(text)?.[1];
  const secret = /secret:\s+(\S+)/.exec(text)?.[1];
  if (!clientId || !secret) throw new Error(`the API printed no demo key:\n${text}`);
  return { clientId, secret };
}
