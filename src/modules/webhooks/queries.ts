import { sql } from 'kysely';
import { type Executor, type Tx, rowLocks } from '../../platform/db/database.js';
import { type WebhookDeliveriesTable, type WebhookEndpointsTable } from '../../platform/db/schema.js';

export type EndpointRow = WebhookEndpointsTable;
export type DeliveryRow = WebhookDeliveriesTable;

export async function insertEndpoint(tx: Tx, row: EndpointRow): Promise<void> {
  await tx.insertInto('webhook_endpoints').values(row).execute();
}

export async function countEndpoints(tx: Tx, companyId: string): Promise<number> {
  const row = await tx
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Serialises endpoint creation per company (the 20-endpoint limit): the company row stays locked (PostgreSQL). */
export async function lockCompany(tx: Tx, companyId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('companies')
    .select('id')
    .where('id', '=', companyId)
    .$if(rowLocks(tx), (q) => q.forUpdate())
    .executeTakeFirst();
  return row !== undefined;
}

export async function findEndpoint(db: Executor, companyId: string, id: string, lock = false) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .$if(lock && rowLocks(db), (q) => q.forUpdate())
    .executeTakeFirst();
}

export async function listEndpointsPage(
  db: Executor,
  companyId: string,
  afterId: string | null,
  limit: number,
) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('company_id', '=', companyId)
    .$if(afterId !== null, (q) => q.where('id', '>', afterId!))
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function updateEndpointRow(tx: Tx, id: string, set: Partial<EndpointRow>): Promise<void> {
  await tx.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
}

export async function deleteEndpointRows(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
  await tx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

/** Drops an endpoint's pending deliveries (not leased ones) whose type is not in `types`. */
export async function deletePendingDeliveriesExcept(
  tx: Tx,
  endpointId: string,
  types: string[],
): Promise<void> {
  await tx
    .deleteFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpointId)
    .where('state', '=', 'pending')
    .where('lease_owner', 'is', null)
    .$if(types.length > 0, (q) => q.where('event_type', 'not in', types))
    .execute();
}

/** How many pending deliveries an endpoint has, counted up to `cap`. */
export async function countPendingDeliveries(db: Executor, endpointId: string, cap: number): Promise<number> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .where('state', '=', 'pending')
        .limit(cap)
        .as('p'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Removes finished (succeeded or failed) deliveries created before `cutoff`; pending ones stay. */
export async function deleteFinishedDeliveriesBefore(tx: Tx, cutoff: string): Promise<number> {
  const result = await tx
    .deleteFrom('webhook_deliveries')
    .where('state', 'in', ['succeeded', 'failed'])
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertDeliveries(tx: Tx, rows: DeliveryRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await tx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.columns(['endpoint_id', 'event_id']).where(sql.ref('origin'), '=', sql.lit('event')).doNothing(),
      )
      .execute();
  }
}

export async function findDelivery(db: Executor, endpointId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** An endpoint's deliveries, newest first, after (created_at, id) when given. */
export async function listDeliveriesPage(
  db: Executor,
  endpointId: string,
  before: { createdAt: string; id: string } | null,
  limit: number,
) {
  return db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'event_id',
      'event_type',
      'origin',
      'state',
      'attempts',
      'next_attempt_at',
      'last_status',
      'last_error',
      'last_duration_ms',
      'last_attempt_at',
      'created_at',
    ])
    .where('endpoint_id', '=', endpointId)
    .$if(before !== null, (q) =>
      q.where((eb) =>
        eb.or([
          eb('created_at', '<', before!.createdAt),
          eb.and([eb('created_at', '=', before!.createdAt), eb('id', '<', before!.id)]),
        ]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Events of a time range, for a replay: retained ones after the endpoint's creation, of the given types. */
export async function eventsBetween(
  db: Executor,
  companyId: string,
  range: { from: string; to: string; afterSeq: number; types: string[]; limit: number },
) {
  if (range.types.length === 0) return [];
  return db
    .selectFrom('events')
    .select(['seq', 'id', 'type', 'occurred_at', 'data'])
    .where('company_id', '=', companyId)
    .where('seq', '>', range.afterSeq)
    .where('occurred_at', '>=', range.from)
    .where('occurred_at', '<', range.to)
    .where('type', 'in', range.types)
    .orderBy('seq')
    .limit(range.limit)
    .execute();
}

export async function keyState(db: Executor, keyId: string) {
  return db
    .selectFrom('api_keys')
    .select(['scopes', 'revoked_at', 'expires_at'])
    .where('id', '=', keyId)
    .executeTakeFirst();
}

export async function keyScopes(db: Executor, keyId: string): Promise<string[] | null> {
  const key = await db.selectFrom('api_keys').select('scopes').where('id', '=', keyId).executeTakeFirst();
  return key ? (JSON.parse(key.scopes) as string[]) : null;
}
