import { randomBytes } from 'node:crypto';
import type { Executor } from './db/database.js';

/**
 * The random keys the service makes once and keeps in the database (table app_secrets), shared by
 * every instance and the CLI: the cursor HMAC key (a cursor made by one instance is accepted by all)
 * and, unless WEBHOOK_ENCRYPTION_KEY is configured, the key that encrypts webhook endpoints' signing
 * secrets at rest (AES-256-GCM).
 */
export type AppSecretName = 'cursor_hmac_key' | 'webhook_encryption_key';

/** The secret `name`: made (32 random bytes) by whoever asks first, read by everyone after. */
export async function loadAppSecret(db: Executor, name: AppSecretName, now: number): Promise<Buffer> {
  await db
    .insertInto('app_secrets')
    .values({ name, value: randomBytes(32).toString('base64'), created_at: new Date(now).toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('app_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64');
}
