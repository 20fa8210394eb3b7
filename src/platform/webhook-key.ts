import { randomBytes } from 'node:crypto';
import type { Executor } from './db/database.js';

/**
 * The key that encrypts webhook endpoints' signing secrets at rest (AES-256-GCM): WEBHOOK_ENCRYPTION_KEY
 * when configured, otherwise a random key made once and kept in the database beside the cursor secret
 * and the token signing keys, shared by every instance and the CLI.
 */
export async function loadWebhookKey(db: Executor, configured: Buffer | null, now: number): Promise<Buffer> {
  if (configured !== null) return configured;
  await db
    .insertInto('app_secrets')
    .values({
      name: 'webhook_encryption_key',
      value: randomBytes(32).toString('base64'),
      created_at: new Date(now).toISOString(),
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('app_secrets')
    .select('value')
    .where('name', '=', 'webhook_encryption_key')
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64');
}
