import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks 1.0 (standardwebhooks.com): a secret is `whsec_` + standard base64 of its bytes;
 * a signature is `v1,` + base64 HMAC-SHA256, keyed with those bytes, of `<id>.<timestamp>.<body>`.
 */
export const SECRET_PREFIX = 'whsec_';

export function secretBytes(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
}

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const digest = createHmac('sha256', secretBytes(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${digest}`;
}

/** The `webhook-signature` header: one signature per secret, space-separated (two during a rotation). */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => signWebhook(secret, id, timestamp, body)).join(' ');
}
