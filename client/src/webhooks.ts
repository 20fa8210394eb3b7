import { createHmac, timingSafeEqual } from 'node:crypto';
import type { webhooks } from './schema.js';

type Deliveries = { [K in keyof webhooks]: NonNullable<webhooks[K]['post']>['requestBody'] };
/**
 * A verified webhook delivery's body, `{type, timestamp, data}`, typed by `type` from the
 * description's top-level `webhooks`. The list of types is open: ignore the ones you do not know.
 */
export type WebhookEvent = {
  [K in keyof Deliveries]: NonNullable<Deliveries[K]>['content']['application/json'];
}[keyof Deliveries];
export type WebhookEventType = WebhookEvent['type'];

/** A delivery that does not verify: missing headers, a timestamp too far off, no matching signature. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds. Default 300 (Standard Webhooks). */
  toleranceSeconds?: number;
  /** Clock in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/**
 * Verifies a webhook delivery by the Standard Webhooks 1.0 rules and returns its parsed body:
 * `webhook-signature` must hold a `v1,` signature (HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`,
 * keyed with the base64-decoded secret) made with one of `secrets` (pass the old and the new secret
 * while you rotate), and `webhook-timestamp` must be within 5 minutes of now. Pass the body exactly
 * as received (the raw text or bytes, not re-serialised JSON). Throws WebhookVerificationError.
 * Deduplicate on `webhook-id`: a retried or replayed event keeps it.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: HeaderBag,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook headers');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('webhook-timestamp is too far from now');
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const sent = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  const matches = list.some((secret) => {
    const expected = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${text}`).digest();
    return sent.some(
      (signature) => signature.length === expected.length && timingSafeEqual(signature, expected),
    );
  });
  if (!matches) throw new WebhookVerificationError('no matching signature');
  return JSON.parse(text) as WebhookEvent;
}
