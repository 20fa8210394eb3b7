import { randomBytes } from 'node:crypto';
import type { Executor } from './db/database.js';

/** Shared by every instance on the database, so a cursor made by one is accepted by all. */
export async function loadCursorSecret(db: Executor, now: number): Promise<Buffer> {
  await db
    .insertInto('app_secrets')
    .values({
      name: 'cursor_hmac_key',
      value: randomBytes(32).toString('base64'),
      created_at: new Date(now).toISOString(),
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('app_secrets')
    .select('value')
    .where('name', '=', 'cursor_hmac_key')
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64');
}
