import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/*
 * A kiosk device's secrets (issue 35). The enrolment code is typed on a tablet once: 8 characters of
 * an alphabet without look-alikes (40 bits), single-use, 15 minutes, rate-limited per address; it is
 * stored only as its SHA-256, which is also how the enrolment finds it. The device credential is
 * shaped like an API key's (`dev_<24 hex>_<32 random bytes>`): 256 random bits, so a fast hash is
 * enough, compared in constant time.
 */

export const DEVICE_CLIENT_PREFIX = 'dev_';
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;
export const ENROLMENT_MINUTES = 15;

/** A fresh enrolment code, shown as `ABCD-EFGH`. */
export function generateEnrolmentCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** A code as typed (any case, with or without the dash or spaces), or null when it cannot be one. */
export function normaliseEnrolmentCode(value: string): string | null {
  const code = value.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== CODE_LENGTH || [...code].some((c) => !CODE_ALPHABET.includes(c))) return null;
  return code;
}

export function hashEnrolmentCode(normalised: string): string {
  return sha256(`enrolment:${normalised}`);
}

export function generateDeviceClientId(): string {
  return DEVICE_CLIENT_PREFIX + randomBytes(12).toString('hex');
}

export function generateDeviceSecret(clientId: string): string {
  return `${clientId}_${randomBytes(32).toString('base64url')}`;
}

export function hashDeviceSecret(secret: string): string {
  return sha256(secret);
}

export function deviceSecretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashDeviceSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** The client id a device secret claims (`dev_<hex>_<random>`), or null. */
export function deviceClientIdOfSecret(secret: string): string | null {
  const match = /^(dev_[0-9a-f]{24})_[A-Za-z0-9_-]+$/.exec(secret);
  return match ? match[1]! : null;
}

/** Whether a token request names a device (its client id or its secret starts with `dev_`). */
export function isDeviceCredential(clientId: string | null, secret: string): boolean {
  return secret.startsWith(DEVICE_CLIENT_PREFIX) || (clientId?.startsWith(DEVICE_CLIENT_PREFIX) ?? false);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
