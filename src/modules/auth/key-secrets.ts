import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const CLIENT_ID_PREFIX = 'svc_';

export function generateClientId(): string {
  return CLIENT_ID_PREFIX + randomBytes(12).toString('hex');
}

/** The whole key: the client id, an underscore, then 32 random bytes (spec, Authentication rule 4). */
export function generateSecret(clientId: string): string {
  return `${clientId}_${randomBytes(32).toString('base64url')}`;
}

/*
 * The secret carries 256 random bits, so a fast hash is enough: there is nothing to brute-force,
 * and a slow KDF would only make the token endpoint easy to overload.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** The client id a secret claims to belong to (`svc_<id>_<random>`), or null when it is not shaped like one. */
export function clientIdOfSecret(secret: string): string | null {
  const match = /^(svc_[0-9a-f]+)_[A-Za-z0-9_-]+$/.exec(secret);
  return match ? match[1]! : null;
}

export function normaliseClientId(value: string): string {
  return value.startsWith(CLIENT_ID_PREFIX) ? value : CLIENT_ID_PREFIX + value;
}
