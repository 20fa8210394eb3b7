import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * What the console's and the kiosk's static files share: each file read once at start-up into memory
 * under a fixed URL (so no request path reaches the file system), with a content hash as its ETag, and
 * answered with the page's security headers, `no-cache` and a 304 when the client holds it already.
 */
export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

export function assetOf(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

export function sendAsset(
  reply: FastifyReply,
  headers: Record<string, string>,
  ifNoneMatch: string | undefined,
  file: Asset,
) {
  reply.headers(headers).header('cache-control', 'no-cache').header('etag', file.etag);
  if (ifNoneMatch === file.etag) return reply.code(304).send();
  return reply.type(file.type).send(file.body);
}
