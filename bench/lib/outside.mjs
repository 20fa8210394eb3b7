// `run.mjs --serve`: the fixtures and both servers of a run, left up for another load generator, with
// every scenario's requests written out as files that bench/outside/replay.lua (wrk) sends as they are.
import { createWriteStream, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TOKEN_PLACEHOLDER = '@@BEARER_TOKEN@@';
const SEPARATOR = '\0';

/** The raw HTTP/1.1 request wrk writes to the socket. */
function rawRequest(url, { method, path, headers, body }) {
  const host = new URL(url).host;
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host}`];
  for (const [name, value] of Object.entries(headers ?? {})) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/**
 * Runs an autocannon request generator without a network: each request as autocannon would build
 * it, each answered at once with `respond(request)` (the response body the generator reads, e.g. a
 * page's nextCursor), until `count` requests are made or `until(request)` says the cycle is complete.
 */
async function materialize(specs, { count, respond, until }) {
  const made = [];
  for (let i = 0; made.length < count; i++) {
    const spec = specs[i % specs.length];
    const context = {};
    const request = spec.setupRequest ? spec.setupRequest({ ...spec }, context) : spec;
    made.push(request);
    const body = respond ? await respond(request) : '{}';
    spec.onResponse?.(200, body, context);
    if (until?.(request, body)) break;
  }
  return made;
}

async function writeRequests(file, mode, url, requests) {
  const partial = `${file}.partial`;
  const out = createWriteStream(partial);
  out.write(`${mode}${SEPARATOR}`);
  for (const request of requests) {
    if (!out.write(rawRequest(url, request) + SEPARATOR))
      await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  renameSync(partial, file);
}

/**
 * Writes, for each scenario and each server, the files `<scenario>.<side>[.<set>].req` into `dir`:
 * reads as one cycle that wrk repeats (`cycle`), writes as `sets` separate sets of `writes` requests on
 * fresh employees that are sent once each (`once`). The API's bearer token is a placeholder that
 * replay.lua fills in from `token.<fixture>` (tokens live 15 minutes; `refreshTokens` rewrites them).
 */
export async function writeOutsideRequests({ dir, servers, scenarios, writes, sets, log }) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = [];
  for (const scenario of scenarios) {
    for (const side of ['floor', 'api']) {
      const server = servers[side];
      const token = TOKEN_PLACEHOLDER;
      if (scenario.kind === 'write' && scenario.key !== 'token') {
        for (let set = 1; set <= sets; set++) {
          const specs = await scenario.build(`outside-${side}-${set}`, token, noProblems(), `o${side}${set}`);
          const requests = await materialize(specs, { count: writes });
          const file = join(dir, `${scenario.key}.${side}.${set}.req`);
          await writeRequests(file, 'once', server.url, requests);
          files.push({ scenario, side, set, file, requests: requests.length });
        }
        continue;
      }
      const specs = await scenario.build(`outside-${side}`, token, noProblems(), `o${side}`);
      let requests;
      if (scenario.key === 'employees') {
        // A walk follows the cursors the server hands out: walk it once for real (reads change
        // nothing), then wrk repeats that walk.
        const realToken = await servers.tokenFor(scenario.fixture);
        requests = await materialize(specs, {
          count: 100_000,
          respond: async (request) => {
            const headers = { ...request.headers };
            headers.authorization = `Bearer ${realToken}`;
            const response = await fetch(server.url + request.path, { headers });
            if (response.status !== 200)
              throw new Error(`walking ${request.path}: ${response.status} ${await response.text()}`);
            return response.text();
          },
          until: (_request, body) => JSON.parse(body).nextCursor === null,
        });
      } else {
        requests = await materialize(specs, { count: specs.cycle ?? 1 });
      }
      const file = join(dir, `${scenario.key}.${side}.req`);
      await writeRequests(file, 'cycle', server.url, requests);
      files.push({ scenario, side, set: null, file, requests: requests.length });
    }
    log(`  written: ${scenario.key}`);
  }
  return files;
}

/** `token.<fixture name>` for each fixture: the API's current token, which replay.lua reads at start. */
export async function refreshTokens({ dir, servers, fixtures }) {
  for (const [name, fixture] of Object.entries(fixtures)) {
    const file = join(dir, `token.${name}`);
    writeFileSync(`${file}.partial`, `${await servers.tokenFor(fixture)}\n`);
    renameSync(`${file}.partial`, file);
  }
}

function noProblems() {
  return { samples: [], note() {} };
}
