import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { SECRET_PREFIX } from '../../domain/webhook-signature.js';

const SECRET_BYTES = 32;
const IV_BYTES = 12;

/** A new signing secret: `whsec_` + standard base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** Which key sealed a secret (the first 8 hex digits of its SHA-256): a changed WEBHOOK_ENCRYPTION_KEY is told apart from tampering. */
function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts): AES-256-GCM with a fresh 96-bit IV. */
export function sealSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url'));
  return ['v1', keyId(key), ...parts].join('.');
}

export class SecretUnreadable extends Error {}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, kid, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined)
    throw new SecretUnreadable('the stored secret has an unknown format');
  if (kid !== keyId(key))
    throw new SecretUnreadable(
      'the secret was encrypted under another key (WEBHOOK_ENCRYPTION_KEY changed?)',
    );
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretUnreadable('the stored secret does not decrypt');
  }
}
