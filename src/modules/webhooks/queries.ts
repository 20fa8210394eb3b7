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

// --- the dispatcher's statements ---

/** Attempts of one endpoint in flight at once (claimed and not yet recorded), across instances. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 2;

/** Active endpoints with events in the log they have not been given yet, furthest behind first. */
export async function endpointsBehind(db: Executor, limit: number) {
  return (
    db
      .selectFrom('webhook_endpoints as w')
      .innerJoin('event_sequences as s', 's.company_id', 'w.company_id')
      .select(['w.id'])
      .where('w.status', '=', 'active')
      .whereRef('s.last_seq', '>', 'w.after_seq')
      // Furthest behind first: with more endpoints behind than `limit`, none waits for ever.
      .orderBy(sql`s.last_seq - w.after_seq`, 'desc')
      .orderBy('w.id')
      .limit(limit)
      .execute()
  );
}

/** The endpoint, locked for its fan-out; undefined when another instance is at it (PostgreSQL) or it is not active. */
export async function lockEndpointForFanOut(tx: Tx, id: string) {
  return tx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('status', '=', 'active')
    .$if(rowLocks(tx), (q) => q.forUpdate().skipLocked())
    .executeTakeFirst();
}

export async function keyState(db: Executor, keyId: string) {
  return db
    .selectFrom('api_keys')
    .select(['scopes', 'revoked_at', 'expires_at'])
    .where('id', '=', keyId)
    .executeTakeFirst();
}

/** Active endpoints whose creating key is revoked, or expired by `nowIso`. */
export async function endpointsOfDeadKeys(db: Executor, nowIso: string) {
  return db
    .selectFrom('webhook_endpoints as w')
    .innerJoin('api_keys as k', 'k.id', 'w.created_by_key_id')
    .select(['w.id', 'k.revoked_at', 'k.expires_at'])
    .where('w.status', '=', 'active')
    .where((eb) => eb.or([eb('k.revoked_at', 'is not', null), eb('k.expires_at', '<=', nowIso)]))
    .limit(100)
    .execute();
}

/**
 * Up to `limit` ids of due, unleased deliveries of active endpoints with a live key (if bound to one),
 * soonest due first, that keep each endpoint within MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight.
 */
function fairShare(nowIso: string, limit: number) {
  return sql<{ id: string }>`select r.id from (
    select d.id, d.endpoint_id, d.next_attempt_at,
      row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as rn
    from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
    where d.state = 'pending' and d.next_attempt_at <= ${nowIso}
      and (d.lease_until is null or d.lease_until < ${nowIso}) and w.status = 'active'
      and (w.created_by_key_id is null or exists (select 1 from api_keys k where k.id = w.created_by_key_id
        and k.revoked_at is null and (k.expires_at is null or k.expires_at > ${nowIso})))
  ) r left join (
    select l.endpoint_id, count(*) as n from webhook_deliveries l
    where l.state = 'pending' and l.lease_until >= ${nowIso} group by l.endpoint_id
  ) h on h.endpoint_id = r.endpoint_id
  where r.rn + coalesce(h.n, 0) <= ${MAX_IN_FLIGHT_PER_ENDPOINT}
  order by r.next_attempt_at, r.id limit ${limit}`;
}

/**
 * Claims up to `limit` due deliveries of active endpoints for `owner` until `leaseUntil`. PostgreSQL:
 * rows another instance is claiming are skipped (FOR UPDATE SKIP LOCKED); SQLite: the transaction
 * holds the write lock (BEGIN IMMEDIATE), so claims of two processes on one file run one after the
 * other and the second sees the first's lease.
 */
export async function claimDue(tx: Tx, owner: string, nowIso: string, leaseUntil: string, limit: number) {
  // Fairness: at most MAX_IN_FLIGHT_PER_ENDPOINT attempts of one endpoint at a time (leases held
  // included), so one slow receiver's backlog never fills the claims of the others. The candidates
  // are chosen by a statement of their own, the leases counted once per endpoint: as one subquery of
  // the locking statement, with the leases counted per due row, the claim grew with the square (or
  // worse) of an endpoint's backlog and took minutes on PostgreSQL once a thousand deliveries waited
  // (issue 36: deliveries crawled after a restart). The locking statement checks every condition again.
  const { rows } = await fairShare(nowIso, limit).execute(tx);
  const candidates = rows.map((r) => r.id);
  if (candidates.length === 0) return [];
  const due = await tx
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'event_id', 'event_type', 'payload', 'attempts'])
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', nowIso)]))
    .where('endpoint_id', 'in', (eb) =>
      eb
        .selectFrom('webhook_endpoints as w')
        .select('w.id')
        .where('w.status', '=', 'active')
        // Not while the key it is bound to is revoked or expired (the sweep disables it soon after).
        .where((e) =>
          e.or([
            e('w.created_by_key_id', 'is', null),
            e.exists(
              e
                .selectFrom('api_keys as k')
                .select('k.id')
                .whereRef('k.id', '=', 'w.created_by_key_id')
                .where('k.revoked_at', 'is', null)
                .where((x) => x.or([x('k.expires_at', 'is', null), x('k.expires_at', '>', nowIso)])),
            ),
          ]),
        ),
    )
    .where('id', 'in', candidates)
    .orderBy('next_attempt_at')
    .limit(limit)
    .$if(rowLocks(tx), (q) => q.forUpdate().skipLocked())
    .execute();
  if (due.length > 0)
    await tx
      .updateTable('webhook_deliveries')
      .set({ lease_owner: owner, lease_until: leaseUntil })
      .where(
        'id',
        'in',
        due.map((d) => d.id),
      )
      .execute();
  return due;
}

/** Gives back the leases `owners` still hold (a stopping instance): the deliveries are due again at once. */
export async function releaseLeases(db: Executor, owners: string[]): Promise<number> {
  if (owners.length === 0) return 0;
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_until: null })
    .where('lease_owner', 'in', owners)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function endpointsByIds(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids).execute();
}

/** The delivery, locked, while `owner` still holds its lease; undefined when the lease was lost. */
export async function leasedDelivery(tx: Tx, id: string, owner: string) {
  return tx
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'attempts', 'state'])
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .$if(rowLocks(tx), (q) => q.forUpdate())
    .executeTakeFirst();
}

export async function updateDelivery(tx: Tx, id: string, set: Partial<DeliveryRow>): Promise<void> {
  await tx.updateTable('webhook_deliveries').set(set).where('id', '=', id).execute();
}

/**
 * The endpoint's failure state, locked (PostgreSQL) before its delivery is: the same order as a
 * deletion (endpoint, then deliveries), so the two never deadlock.
 */
export async function endpointFailureState(tx: Tx, id: string) {
  return tx
    .selectFrom('webhook_endpoints')
    .select(['failing_since', 'status'])
    .where('id', '=', id)
    .$if(rowLocks(tx), (q) => q.forUpdate())
    .executeTakeFirst();
}

/** A success ends the endpoint's failing streak: conditional, so a stale copy never decides it. */
export async function clearFailingSince(tx: Tx, id: string): Promise<void> {
  await tx
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .execute();
}

export async function keyScopes(db: Executor, keyId: string): Promise<string[] | null> {
  const key = await db.selectFrom('api_keys').select('scopes').where('id', '=', keyId).executeTakeFirst();
  return key ? (JSON.parse(key.scopes) as string[]) : null;
}
