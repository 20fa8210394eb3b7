import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { type OutboundPolicy, UnsafeTarget, checkUrl, hostOf, vetHost } from './address-guard.js';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is read; the rest is dropped with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendOutcome {
  /** The receiver's status code; null when none came (refused target, network error, timeout). */
  status: number | null;
  /** Why no status came, or null. */
  error: string | null;
  /** For the server's log only: a refusal's details (the addresses a name resolved to). */
  detail?: string;
  durationMs: number;
}

/**
 * Keep-alive connections for the dispatcher's sends: a connection to a receiver (host and port) is
 * used again by its next delivery instead of a new TCP (and TLS) handshake each. A connection is made
 * only through `guardedLookup` (the address it connects to was vetted), and every send still vets the
 * URL's host first. An idle connection is closed after `idleMs` (below the 5 s many servers keep one).
 */
export interface OutboundAgents {
  http: HttpAgent;
  https: HttpsAgent;
  destroy(): void;
}

export function keepAliveAgents(idleMs = 4_000): OutboundAgents {
  const options = { keepAlive: true, timeout: idleMs, scheduling: 'lifo' as const };
  const http = new HttpAgent(options);
  const https = new HttpsAgent(options);
  return {
    http,
    https,
    destroy() {
      http.destroy();
      https.destroy();
    },
  };
}

/** Errors of a kept-alive connection the receiver had closed meanwhile: the request never reached it. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * A `lookup` for the socket that resolves the host itself and hands the socket only a vetted
 * address: the address connected to is the one checked, so a name that resolves to a public address
 * at the check and to 127.0.0.1 at the connect (DNS rebinding) is refused at the connect.
 */
export function guardedLookup(policy: OutboundPolicy, vet: typeof vetHost = vetHost): LookupFunction {
  return (hostname, options, callback) => {
    vet(hostname, policy).then(
      (found) => {
        if ((options as { all?: boolean }).all)
          (callback as (e: null, a: { address: string; family: number }[]) => void)(null, found);
        else callback(null, found[0]!.address, found[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/** What one request needs: the vetted URL, the attempt's start and deadline, the answer's shape. */
interface Request {
  url: URL;
  headers: Record<string, string>;
  body: string;
  policy: OutboundPolicy;
  vet: typeof vetHost;
  started: number;
  timeoutMs: number;
  done: (status: number | null, error: string | null) => SendOutcome;
}

/**
 * One HTTP request of an attempt, on `agent`'s kept connections (or a new one with `false`); 'stale'
 * when a kept connection turned out closed by the receiver before any answer.
 */
function requestOnce(
  { url, headers, body, policy, vet, started, timeoutMs, done }: Request,
  agent: HttpAgent | false,
): Promise<SendOutcome | 'stale'> {
  return new Promise<SendOutcome | 'stale'>((resolve) => {
    let settled = false;
    let answered = false;
    const finish = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(status, error));
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: 'POST',
        agent,
        lookup: guardedLookup(policy, vet),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Punchclock-Webhooks/1',
        },
      },
      (response: IncomingMessage) => {
        answered = true;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) {
            finish(response.statusCode ?? null, null);
            response.destroy();
          }
        });
        response.on('end', () => finish(response.statusCode ?? null, null));
        response.on('error', () => finish(response.statusCode ?? null, null));
      },
    );
    const timer = setTimeout(
      () => {
        finish(null, `timeout after ${timeoutMs} ms`);
        request.destroy();
      },
      Math.max(1, timeoutMs - (performance.now() - started)),
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (
        !settled &&
        !answered &&
        request.reusedSocket &&
        error.code !== undefined &&
        STALE_CONNECTION.has(error.code)
      ) {
        settled = true;
        clearTimeout(timer);
        resolve('stale');
        return;
      }
      const refused = error instanceof UnsafeTarget;
      finish(null, refused ? `refused: ${error.message}` : `network error: ${error.code ?? error.message}`);
    });
    request.end(body);
  });
}

/**
 * POSTs one delivery: no redirects followed (a 3xx is an answer like any other non-2xx), at most
 * 10 s in all (name resolution included: the deadline starts before it, so one attempt never
 * outlasts the dispatcher's 30 s lease), at most 64 KiB of the answer read. Never throws. `vet`
 * resolves and vets the host (tests give a slow one). With `agents`, connections are kept alive and
 * used again; a kept connection found closed by the receiver before any answer is replaced by a new
 * one once, within the same deadline.
 */
export async function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  policy: OutboundPolicy,
  timeoutMs = DELIVERY_TIMEOUT_MS,
  vet: typeof vetHost = vetHost,
  agents?: OutboundAgents,
): Promise<SendOutcome> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): SendOutcome => ({
    status,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  const checked = checkUrl(target, policy);
  if ('problem' in checked) return done(null, `refused: the URL ${checked.problem}`);
  const { url } = checked;
  const host = hostOf(url);
  // An address literal never reaches `lookup`: it is vetted here (a name too, before connecting),
  // within the attempt's deadline: a lookup that hangs (getaddrinfo cannot be cancelled) is abandoned.
  let deadlineTimer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    deadlineTimer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    if ((await Promise.race([vet(host, policy), deadline])) === 'timeout')
      return done(null, `timeout after ${timeoutMs} ms`);
  } catch (error) {
    return {
      ...done(null, `refused: ${(error as Error).message}`),
      ...(error instanceof UnsafeTarget ? { detail: error.detail } : {}),
    };
  } finally {
    clearTimeout(deadlineTimer);
  }
  const request: Request = { url, headers, body, policy, vet, started, timeoutMs, done };
  const agent = agents === undefined ? false : url.protocol === 'https:' ? agents.https : agents.http;
  const first = await requestOnce(request, agent);
  if (first !== 'stale') return first;
  // The receiver closed the kept connection as it was used: once more, on a new connection.
  const second = await requestOnce(request, false);
  return second === 'stale' ? done(null, 'network error: ECONNRESET') : second;
}
