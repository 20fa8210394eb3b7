import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { validationError } from '../../domain/errors.js';

/*
 * Console passwords: scrypt from node:crypto (memory-hard, no native package to install). The stored
 * form carries its parameters and salt, `scrypt$N$r$p$salt$hash` (salt and hash base64url), so the
 * parameters can be raised later without invalidating existing passwords.
 */
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** scrypt needs 128·N·r bytes; node's default ceiling (32 MiB) is just too small for N = 2^15, r = 8. */
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number, length: number) {
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, { N: n, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** Null when acceptable, else why not (counted in characters, not bytes). */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH)
    return `the password must have at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `the password must have at most ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

/** 422 validation_failed on the `password` field when the password is not acceptable. */
export function requireAcceptablePassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem) throw validationError([{ field: 'password', message: problem, code: 'too_short' }], problem);
  return password;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, N, R, P, KEY_LENGTH);
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored`, compared in constant time; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every((v) => Number.isSafeInteger(v) && v > 0)) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length === 0) return false;
  const actual = await derive(password, salt, n, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | null = null;
/**
 * A hash nobody's password matches, to verify against when the email is unknown: an unknown email
 * costs the same scrypt time as a wrong password, so timing does not tell whether an account exists.
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummy;
}

/** A random token of 256 bits (session ids, invitation tokens), base64url. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 of a high-entropy token, base64url: what the database stores instead of the token. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
