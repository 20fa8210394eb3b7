import { type ExpressionBuilder, sql } from 'kysely';
import { type Executor, type Tx, rowLocks, transactionLock } from '../../platform/db/database.js';
import { type Schema } from '../../platform/db/schema.js';
import { type DeliveryRow } from './queries.js';

// The dispatcher's statements: fan-out, claims with leases, outcomes (queries.ts holds the endpoints'
// and deliveries' reads and writes for the API).

/**
 * Attempts of one endpoint in flight at once (claimed and not yet recorded), across instances, when the
 * caller names no other (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, config.ts, sets the server's).
 */
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

/** A delivery no instance holds a lease on (or whose lease ran out) by `nowIso`. */
const unleased = (nowIso: string) => (eb: ExpressionBuilder<Schema, 'webhook_deliveries'>) =>
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', nowIso)]);

/**
 * The endpoint `w` is not bound to a key, or its key is neither revoked nor expired by `nowIso`: no
 * delivery goes out for an endpoint whose key died (the sweep disables it soon after).
 */
const keyAlive = (nowIso: string) =>
  sql<boolean>`(w.created_by_key_id is null or exists (select 1 from api_keys k
    where k.id = w.created_by_key_id and k.revoked_at is null and (k.expires_at is null or k.expires_at > ${nowIso})))`;

/**
 * Active endpoints with a live key (if bound to one) that have a due, unleased delivery and fewer than
 * MAX_IN_FLIGHT_PER_ENDPOINT leases in flight: their id, oldest due time and leases held, oldest due
 * first. Each endpoint costs two index probes (0013-production), whatever its backlog.
 */
async function endpointsWithDue(tx: Tx, nowIso: string, limit: number, perEndpoint: number) {
  const rows = await tx
    .selectFrom((db) =>
      db
        .selectFrom('webhook_endpoints as w')
        .select((eb) => [
          'w.id',
          eb
            .selectFrom('webhook_deliveries')
            .select('next_attempt_at')
            .whereRef('endpoint_id', '=', 'w.id')
            .where('state', '=', 'pending')
            .where('next_attempt_at', '<=', nowIso)
            .where(unleased(nowIso))
            .orderBy('next_attempt_at')
            .limit(1)
            .as('oldest_due'),
          eb
            .selectFrom('webhook_deliveries')
            .select((c) => c.fn.countAll<number>().as('n'))
            .whereRef('endpoint_id', '=', 'w.id')
            .where('state', '=', 'pending')
            .where('lease_until', '>=', nowIso)
            .as('held'),
        ])
        .where('w.status', '=', 'active')
        .where(keyAlive(nowIso))
        .as('e'),
    )
    .selectAll()
    .where('e.oldest_due', 'is not', null)
    .where('e.held', '<', perEndpoint)
    .orderBy('e.oldest_due')
    .orderBy('e.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, held: Number(r.held) }));
}

/**
 * Up to `limit` ids of due, unleased deliveries, soonest due first, that keep each endpoint within
 * MAX_IN_FLIGHT_PER_ENDPOINT attempts in flight (leases held included), so one slow receiver's backlog
 * never fills the claims of the others. Two statements, each reading per endpoint only the few rows it
 * needs through an index that starts with the endpoint: the claim is made after every finished send,
 * and one that read the whole backlog (a window over every pending delivery, as until issue 36's soak)
 * grew with it until it took the whole CPU.
 */
async function fairShare(tx: Tx, nowIso: string, limit: number, perEndpoint: number): Promise<string[]> {
  const endpoints = await endpointsWithDue(tx, nowIso, limit, perEndpoint);
  if (endpoints.length === 0) return [];
  const arms = endpoints.map((endpoint) =>
    tx
      .selectFrom((db) =>
        db
          .selectFrom('webhook_deliveries')
          .select(['id', 'next_attempt_at'])
          .where('endpoint_id', '=', endpoint.id)
          .where('state', '=', 'pending')
          .where('next_attempt_at', '<=', nowIso)
          .where(unleased(nowIso))
          .orderBy('next_attempt_at')
          .orderBy('id')
          .limit(perEndpoint - endpoint.held)
          .as('d'),
      )
      .selectAll(),
  );
  const rows = await arms
    .slice(1)
    .reduce((query, arm) => query.unionAll(arm), arms[0]!)
    .execute();
  // next_attempt_at is set on every pending delivery (the statements read only those).
  const key = (r: { id: string; next_attempt_at: string | null }) => `${r.next_attempt_at ?? ''} ${r.id}`;
  return rows
    .sort((a, b) => (key(a) < key(b) ? -1 : 1))
    .slice(0, limit)
    .map((r) => r.id);
}

/**
 * Claims up to `limit` due deliveries of active endpoints for `owner` until `leaseUntil`. PostgreSQL:
 * rows another instance is claiming are skipped (FOR UPDATE SKIP LOCKED); SQLite: the transaction
 * holds the write lock (BEGIN IMMEDIATE), so claims of two processes on one file run one after the
 * other and the second sees the first's lease. PostgreSQL: claims also take one advisory lock, so two
 * instances' claims run one after the other too and the second counts the first's leases: each endpoint
 * stays within `perEndpoint` attempts in flight across instances (without it, two claims at the same
 * moment each saw the other's leases uncommitted and took a full share each).
 */
export async function claimDue(
  tx: Tx,
  owner: string,
  nowIso: string,
  leaseUntil: string,
  limit: number,
  perEndpoint = MAX_IN_FLIGHT_PER_ENDPOINT,
) {
  await transactionLock(tx, 'webhook-claims');
  // Fairness (fairShare): the candidates are chosen by statements of their own that read only a few
  // rows per endpoint; the locking statement checks every condition again.
  const candidates = await fairShare(tx, nowIso, limit, perEndpoint);
  if (candidates.length === 0) return [];
  const due = await tx
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'event_id', 'event_type', 'payload', 'attempts'])
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', nowIso)
    .where(unleased(nowIso))
    .where('endpoint_id', 'in', (eb) =>
      eb
        .selectFrom('webhook_endpoints as w')
        .select('w.id')
        .where('w.status', '=', 'active')
        .where(keyAlive(nowIso)),
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

/**
 * The endpoints' failure states, locked (PostgreSQL) in id order before any of their deliveries: the
 * order a deletion takes (endpoint, then deliveries), and two batches lock endpoints in one order.
 * Deleted endpoints are missing.
 */
export async function endpointsFailureState(tx: Tx, ids: string[]) {
  if (ids.length === 0) return [];
  return tx
    .selectFrom('webhook_endpoints')
    .select(['id', 'failing_since', 'status'])
    .where('id', 'in', ids)
    .orderBy('id')
    .$if(rowLocks(tx), (q) => q.forUpdate())
    .execute();
}

/** The deliveries among `ids`, locked in id order, with their lease owner (the caller checks it is theirs). */
export async function leasedDeliveries(tx: Tx, ids: string[]) {
  if (ids.length === 0) return [];
  return tx
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'attempts', 'state', 'lease_owner'])
    .where('id', 'in', ids)
    .orderBy('id')
    .$if(rowLocks(tx), (q) => q.forUpdate())
    .execute();
}

export async function updateDelivery(tx: Tx, id: string, set: Partial<DeliveryRow>): Promise<void> {
  await tx.updateTable('webhook_deliveries').set(set).where('id', '=', id).execute();
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
