import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type OutboundPolicy, UnsafeTarget, checkUrl, hostOf, vetHost } from '../webhooks/address-guard.js';
import { guardedLookup } from '../webhooks/outbound.js';
import { isLoopbackHost } from './rules.js';

/*
 * Every request to a company's identity provider (discovery, token, JWKS, UserInfo) goes through this
 * fetch, given to openid-client as its `customFetch`: the webhooks' address guard decides where it may
 * go (public unicast addresses only, unless SSO_ALLOWED_HOSTS lists the address), the socket connects
 * only to the address that was vetted (no DNS rebinding between the check and the connect), plain http
 * only to a loopback host, no redirects followed, at most 1 MiB of an answer read. A refusal is an
 * `UnsafeTarget`; whoever reports it says only that the provider could not be reached (issue 34's
 * review, item 3: no port-scan oracle).
 */

export const MAX_PROVIDER_RESPONSE_BYTES = 1024 * 1024;

interface FetchOptions {
  body?: unknown;
  headers?: Record<string, string>;
  method?: string;
  signal?: AbortSignal | null;
}

function bodyBytes(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  throw new TypeError('unsupported request body');
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/** The URL's checks: absolute, https (plain http only to a loopback host), no credentials or fragment. */
function checkedUrl(target: string, policy: OutboundPolicy): URL {
  const checked = checkUrl(target, { ...policy, allowHttp: true });
  if ('problem' in checked) throw new UnsafeTarget(`the provider's URL ${checked.problem}`);
  if (checked.url.protocol === 'http:' && !isLoopbackHost(checked.url.hostname))
    throw new UnsafeTarget("the provider's URL must be https (http only on a loopback address)");
  return checked.url;
}

/** A fetch for openid-client that only reaches addresses the guard allows. */
export function guardedFetch(policy: OutboundPolicy) {
  return async (target: string, options: FetchOptions = {}): Promise<Response> => {
    const url = checkedUrl(target, policy);
    await vetHost(hostOf(url), policy);
    const body = bodyBytes(options.body);
    return new Promise<Response>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(
        url,
        {
          method: options.method ?? 'GET',
          headers: { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
          agent: false,
          lookup: guardedLookup(policy),
          ...(options.signal ? { signal: options.signal } : {}),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_PROVIDER_RESPONSE_BYTES) request.destroy(new Error('the answer is too large'));
            else chunks.push(chunk);
          });
          response.on('end', () => {
            const status = response.statusCode ?? 502;
            const empty = status === 204 || status === 205 || status === 304;
            resolve(
              new Response(empty ? null : Buffer.concat(chunks), { status, headers: headersOf(response) }),
            );
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  };
}
