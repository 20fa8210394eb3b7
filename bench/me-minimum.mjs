#!/usr/bin/env node
// What a GET /me that does only what the spec requires costs against the floor's bare route, on the
// embedded database (docs/performance.md, round 8). After `npm run build`:
//
//   node bench/me-minimum.mjs [--duration=8] [--warmup=4] [--rounds=2] [--connections=10] [--api-root=<dir>]
//
// Servers, each its own process on one SQLite file holding the demo company:
//   floor       the floor's route: the principal's select (the same statement, raw rows), returned as is;
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
import { fileURLToPath, URLSearchParams } from 'node:url';
import { runLoad } from './lib/load.mjs';
import { startProcess } from './lib/processes.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PATH = '/api/public/v1/me';
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};

const variant = option('serve', null);
if (variant !== null) await serveVariant(variant);
else await compare();

async function serveVariant(name) {
  const { default: Fastify } = await import('fastify');
  const { openSqlite } = await import('../dist/db/database.js');
  const { rowReader } = await import('../dist/db/rows.js');
  const { rateLimitHeaders } = await import('../dist/http/rate-limit/headers.js');
  const db = openSqlite(process.env.DATABASE_URL.slice('sqlite:'.length));
  const { statement, build } = rowReader(
    db
      .prepare(
        `select k.company_id, k.revoked_at, k.expires_at, k.scopes, c.api_access, c.time_zone, c.time_tracking
           from api_keys k join companies c on c.id = k.company_id where k.id = ?`,
      )
      .raw(true),
  );
  const keyId = process.env.BENCH_KEY_ID;
  const principal = async () => build(statement.get(keyId));
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
    const { clientId, secret } = await demoKeyOf(api);
    const tokenResponse = await fetch(`${api.url}/api/public/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
      }),
    });
    const token = (await tokenResponse.json()).access_token;
    const headers = { authorization: `Bearer ${token}` };
    const meResponse = await fetch(`${api.url}${PATH}`, { headers });
    if (meResponse.status !== 200) throw new Error(`GET /me answered ${meResponse.status}`);
    const meBody = await meResponse.json();
    const variantEnv = { ...env, BENCH_KEY_ID: meBody.id, BENCH_ME_BODY: JSON.stringify(meBody) };
    for (const name of ['floor', 'spec', 'spec-hooks'])
      servers.push(
        Object.assign(
          await startProcess(name, [fileURLToPath(import.meta.url), `--serve=${name}`], variantEnv),
          {
            label: name,
          },
        ),
      );
    api.label = 'api';
    const order = [servers[1], servers[2], servers[3], api];
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
    for (const server of order) await run(server, settings.warmup, `${server.label}-warm`);
    const best = new Map();
    for (let round = 1; round <= settings.rounds; round++)
      for (const server of order) {
        const result = await run(server, settings.duration, `${server.label}-${round}`);
        if (result.non2xx > 0) throw new Error(`${server.label}: ${result.non2xx} answers were not 2xx`);
        console.log(
          `  round ${round} ${server.label.padEnd(10)} ${Math.round(result.rps)} req/s, server CPU ${result.serverCpuUsPerRequest.toFixed(0)} µs/req, steal ${Math.round((result.stealShare ?? 0) * 100)}%`,
        );
        if (!best.has(server.label) || result.rps > best.get(server.label).rps)
          best.set(server.label, result);
      }
    const floor = best.get('floor');
    console.log('\nserver      best req/s  its CPU µs/req  of the floor');
    for (const server of order) {
      const r = best.get(server.label);
      console.log(
        `${server.label.padEnd(10)}  ${String(Math.round(r.rps)).padStart(10)}  ${r.serverCpuUsPerRequest.toFixed(0).padStart(14)}  ${String(Math.round((100 * r.rps) / floor.rps)).padStart(11)}%`,
      );
    }
  } finally {
    for (const server of servers.reverse()) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The demo key the API printed on its first start. */
async function demoKeyOf(api) {
  const text = api.stdout();
  const clientId = /client id: (\S+)/.exec(text)?.[1];
  const secret = /secret:\s+(\S+)/.exec(text)?.[1];
  if (!clientId || !secret) throw new Error(`the API printed no demo key:\n${text}`);
  return { clientId, secret };
}
