import { newId } from '../../domain/ids.js';
import { signatureHeader } from '../../domain/webhook-signature.js';
import { type AppContext } from '../context.js';
import { readEventsAfter, sequenceOf } from '../events/queries.js';
import { type OutboundPolicy } from './address-guard.js';
import { type OutboundAgents, type SendOutcome, keepAliveAgents, postWebhook } from './outbound.js';
import {
  MAX_IN_FLIGHT_PER_ENDPOINT,
  claimDue,
  clearFailingSince,
  endpointsBehind,
  endpointsByIds,
  endpointsFailureState,
  endpointsOfDeadKeys,
  leasedDeliveries,
  lockEndpointForFanOut,
  releaseLeases,
  updateDelivery,
} from './dispatch-queries.js';
import { type EndpointRow, keyState, updateEndpointRow } from './queries.js';
import { openSecret } from './secrets.js';
import { queueEvents } from './deliveries.js';
import { receivableTypes } from './endpoints.js';

/*
 * The dispatcher, run by every `serve` instance (docs/architecture.md, "Webhooks"):
 *
 * 1. Fan-out. Deliveries are derived from the event log, not written by the change: each endpoint
 *    keeps `after_seq`, how far into its company's log it has been served. A transaction locks the
 *    endpoint (PostgreSQL: FOR UPDATE SKIP LOCKED, so one instance does it), reads the events after
 *    it, inserts their deliveries and moves `after_seq`, all or nothing. A write therefore costs
 *    nothing more, and a kill -9 at any moment loses nothing: an event committed is in the log, and
 *    the cursor moves only with the deliveries it made.
 * 2. Claim. Due deliveries are leased (lease_owner, lease_until) in a short transaction (PostgreSQL:
 *    FOR UPDATE SKIP LOCKED; SQLite: BEGIN IMMEDIATE), which commits before any HTTP call.
 * 3. Send, with no transaction open (over kept-alive connections); then record the outcome in a
 *    transaction that first checks the lease is still ours. Outcomes that come in while one such
 *    transaction runs are recorded together in the next (one commit for many). A process killed
 *    between send and record leaves a lease that runs out, and the attempt is made again: at least once.
 */

/**
 * How long a claim holds a delivery by default (WEBHOOK_LEASE_SECONDS): the 10 s send plus ample
 * margin. A process killed while sending leaves its claims to be retried by any instance once this
 * has passed; one that stops cleanly gives them back at once.
 */
const LEASE_MS = 30_000;
const CLAIM_BATCH = 32;
/** Outcomes recorded in one transaction at most. */
const RECORD_BATCH = 100;
const FAN_OUT_BATCH = 500;
/** An endpoint whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;
/** Revoked or expired creating keys are looked for this often. */
const KEY_SWEEP_MS = 5_000;

export type AttemptOutcome = 'success' | 'failure' | 'gone' | 'refused';

/** A finished send waiting to be recorded. */
interface Finished {
  owner: string;
  id: string;
  endpointId: string;
  kind: AttemptOutcome;
  outcome: SendOutcome;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface DispatcherOptions {
  key: Buffer;
  policy: OutboundPolicy;
  retryDelaysSeconds: readonly number[];
  pollIntervalMs: number;
  /** How long a claim holds its deliveries (default 30 s). */
  leaseMs?: number;
  /** Attempts of one endpoint in flight at once, across instances (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT). */
  maxInFlightPerEndpoint?: number;
  onAttempt?: (outcome: AttemptOutcome, seconds: number) => void;
  onError?: (error: unknown) => void;
  /** A refused target's details (resolved addresses), for the server's log: never stored or shown. */
  onRefusal?: (endpointId: string, detail: string) => void;
}

/** The delay before retry number `attempt` (1-based): the schedule's value, jittered by ±20%. */
export function retryDelayMs(
  delays: readonly number[],
  attempt: number,
  random = Math.random,
): number | null {
  const base = delays[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * 1000 * (0.8 + 0.4 * random()));
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastKeySweep = 0;
  /** Sends under way (claimed, not yet recorded): new claims refill up to CLAIM_BATCH as they finish. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Lease owners (one per claim) with deliveries not yet recorded: released when stopping. */
  private readonly owners = new Map<string, number>();
  /** Outcomes waiting for the recording transaction under way to end. */
  private finished: Finished[] = [];
  private recording: Promise<void> | null = null;
  private agents: OutboundAgents | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: DispatcherOptions,
  ) {}

  private get perEndpoint(): number {
    return this.options.maxInFlightPerEndpoint ?? MAX_IN_FLIGHT_PER_ENDPOINT;
  }

  /** The instance's sends in flight at most: every endpoint's share fits at least once. */
  private get claimBatch(): number {
    return Math.max(CLAIM_BATCH, this.perEndpoint);
  }

  start(): void {
    this.stopped = false;
    this.agents ??= keepAliveAgents();
    this.schedule(0);
  }

  /**
   * Stops polling, waits for the round in progress and the sends under way (each within its 10 s
   * deadline, their outcomes recorded), then gives back any lease still held (an outcome that could
   * not be recorded): another instance, or this one restarted, sends those at once instead of after
   * the lease. Returns how many leases were given back.
   */
  async stop(): Promise<number> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await Promise.all([...this.inFlight]);
    this.agents?.destroy();
    this.agents = null;
    const owners = [...this.owners.keys()];
    this.owners.clear();
    return releaseLeases(this.ctx.database.db, owners);
  }

  /** Asks for a round now (after a commit, say); correctness never depends on it. */
  nudge(): void {
    if (!this.stopped && this.running === null) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.round()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          this.running = null;
          this.schedule(this.options.pollIntervalMs);
        });
    }, ms);
    this.timer.unref();
  }

  /** One round: dead keys, fan-out, then claims and sends until nothing is due. */
  async round(): Promise<void> {
    const now = this.ctx.now();
    if (now - this.lastKeySweep >= KEY_SWEEP_MS) {
      this.lastKeySweep = now;
      await this.disableEndpointsOfDeadKeys();
    }
    await this.fanOut();
    for (let i = 0; i < 10 && !this.stopped; i++) {
      const wanted = this.claimBatch - this.inFlight.size;
      if (wanted <= 0) break;
      const claimed = await this.sendDue();
      if (claimed < wanted) break;
    }
  }

  private async disableEndpointsOfDeadKeys(): Promise<void> {
    const nowIso = new Date(this.ctx.now()).toISOString();
    const dead = await endpointsOfDeadKeys(this.ctx.database.db, nowIso);
    for (const row of dead) {
      const reason =
        row.revoked_at !== null
          ? 'the API key that created this endpoint was revoked'
          : 'the API key that created this endpoint expired';
      await this.ctx.database.transaction((tx) =>
        updateEndpointRow(tx, row.id, { status: 'disabled', disabled_reason: reason, updated_at: nowIso }),
      );
    }
  }

  /** Turns new events of the log into deliveries, endpoint by endpoint. */
  async fanOut(): Promise<void> {
    const behind = await endpointsBehind(this.ctx.database.db, 100);
    for (const { id } of behind) {
      if (this.stopped) return;
      await this.ctx.database.transaction(async (tx) => {
        const endpoint = await lockEndpointForFanOut(tx, id);
        if (!endpoint) return;
        const at = new Date(this.ctx.now()).toISOString();
        let scopes: string[] | null = null;
        if (endpoint.created_by_key_id !== null) {
          const key = await keyState(tx, endpoint.created_by_key_id);
          const dead = !key
            ? 'was deleted'
            : key.revoked_at !== null
              ? 'was revoked'
              : key.expires_at !== null && key.expires_at <= at
                ? 'expired'
                : null;
          if (dead !== null || !key) {
            // Its events stop here: the key no longer reads them.
            await updateEndpointRow(tx, endpoint.id, {
              status: 'disabled',
              disabled_reason: `the API key that created this endpoint ${dead ?? 'was deleted'}`,
              updated_at: at,
            });
            return;
          }
          scopes = JSON.parse(key.scopes) as string[];
        }
        const types = new Set(receivableTypes(JSON.parse(endpoint.event_types) as string[], scopes));
        const { lastSeq } = await sequenceOf(tx, endpoint.company_id);
        const events = await readEventsAfter(
          tx,
          endpoint.company_id,
          endpoint.after_seq,
          null,
          FAN_OUT_BATCH,
        );
        const last = events.at(-1);
        // Every event up to lastSeq was committed before the read: with a short page, all were seen.
        const position =
          events.length === FAN_OUT_BATCH ? Number(last!.seq) : Math.max(Number(last?.seq ?? 0), lastSeq);
        await queueEvents(
          tx,
          endpoint,
          events.filter((e) => types.has(e.type)),
          'event',
          at,
        );
        await updateEndpointRow(tx, endpoint.id, { after_seq: position });
      });
    }
  }

  /**
   * Claims due deliveries up to CLAIM_BATCH in flight and starts sending them (no transaction open),
   * each outcome recorded as it comes; returns how many were claimed. A finished send asks for a
   * round, so a slow receiver holds only its own slots, not the whole batch.
   */
  async sendDue(): Promise<number> {
    const wanted = this.claimBatch - this.inFlight.size;
    if (wanted <= 0) return 0;
    const owner = newId();
    const now = this.ctx.now();
    const claimed = await this.ctx.database.transaction((tx) =>
      claimDue(
        tx,
        owner,
        new Date(now).toISOString(),
        new Date(now + (this.options.leaseMs ?? LEASE_MS)).toISOString(),
        wanted,
        this.perEndpoint,
      ),
    );
    if (claimed.length === 0) return 0;
    this.owners.set(owner, claimed.length);
    const endpoints = new Map(
      (await endpointsByIds(this.ctx.database.db, [...new Set(claimed.map((d) => d.endpoint_id))])).map(
        (e) => [e.id, e],
      ),
    );
    for (const delivery of claimed) {
      const endpoint = endpoints.get(delivery.endpoint_id);
      if (!endpoint) continue;
      let ok = false;
      const attempt = (async () => {
        const outcome = await this.send(endpoint, delivery);
        if (outcome.detail !== undefined) this.options.onRefusal?.(endpoint.id, outcome.detail);
        await this.record(owner, delivery.id, endpoint, outcome);
        ok = true;
      })()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.settled(owner, ok);
          this.nudge();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /** One delivery of a claim settled: the claim's owner is forgotten once all are recorded. */
  private settled(owner: string, recorded: boolean): void {
    const left = (this.owners.get(owner) ?? 0) - (recorded ? 1 : 0);
    // An outcome that failed to be recorded keeps the owner until stop() releases its leases.
    if (recorded && left <= 0) this.owners.delete(owner);
    else if (recorded) this.owners.set(owner, left);
  }

  private async send(
    endpoint: EndpointRow,
    delivery: { event_id: string; payload: string },
  ): Promise<SendOutcome> {
    let secrets: string[];
    try {
      secrets = [openSecret(this.options.key, endpoint.secret)];
      if (
        endpoint.previous_secret !== null &&
        endpoint.previous_secret_until !== null &&
        endpoint.previous_secret_until > new Date(this.ctx.now()).toISOString()
      )
        secrets.push(openSecret(this.options.key, endpoint.previous_secret));
    } catch (error) {
      return {
        status: null,
        error: `the endpoint's secret cannot be read: ${(error as Error).message}`,
        durationMs: 0,
      };
    }
    // The timestamp is the wall clock of this attempt (receivers check it against theirs).
    const timestamp = Math.floor(Date.now() / 1000);
    return postWebhook(
      endpoint.url,
      {
        'webhook-id': delivery.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, delivery.event_id, timestamp, delivery.payload),
      },
      delivery.payload,
      this.options.policy,
      undefined,
      undefined,
      this.agents ?? undefined,
    );
  }

  /**
   * Records an outcome: queued, and written with the others that finished meanwhile in one transaction
   * (recordBatch); resolves once it is recorded (or found no longer ours), rejects if it could not be.
   */
  private record(owner: string, id: string, endpoint: EndpointRow, outcome: SendOutcome): Promise<void> {
    const status = outcome.status;
    const kind: AttemptOutcome =
      status !== null && status >= 200 && status < 300
        ? 'success'
        : status === 410
          ? 'gone'
          : outcome.error?.startsWith('refused') === true
            ? 'refused'
            : 'failure';
    this.options.onAttempt?.(kind, outcome.durationMs / 1000);
    return new Promise<void>((resolve, reject) => {
      this.finished.push({ owner, id, endpointId: endpoint.id, kind, outcome, resolve, reject });
      this.flush();
    });
  }

  /** Starts a recording transaction for the outcomes waiting, unless one is under way (it calls again). */
  private flush(): void {
    if (this.recording !== null || this.finished.length === 0) return;
    const batch = this.finished.splice(0, RECORD_BATCH);
    this.recording = this.recordBatch(batch)
      .then(
        () => batch.forEach((f) => f.resolve()),
        async () => {
          // The batch's transaction failed: each outcome alone, so none holds back the others.
          for (const f of batch) await this.recordBatch([f]).then(f.resolve, f.reject);
        },
      )
      .finally(() => {
        this.recording = null;
        this.flush();
      });
  }

  /**
   * Records finished sends in one transaction: their endpoints locked first (id order), then their
   * deliveries (id order), the order deleteEndpoint locks them in; each outcome is written only while
   * its lease is still held, and the endpoints' failure state follows the outcomes in the order they
   * came, as if recorded one by one.
   */
  private async recordBatch(batch: Finished[]): Promise<void> {
    await this.ctx.database.transaction(async (tx) => {
      const endpointIds = [...new Set(batch.map((f) => f.endpointId))].sort();
      const endpoints = new Map(
        (await endpointsFailureState(tx, endpointIds)).map((e) => [
          e.id,
          { failing_since: e.failing_since, status: e.status },
        ]),
      );
      const deliveries = new Map(
        (await leasedDeliveries(tx, [...new Set(batch.map((f) => f.id))].sort())).map((d) => [d.id, d]),
      );
      const now = this.ctx.now();
      const at = new Date(now).toISOString();
      for (const { owner, id, endpointId, kind, outcome } of batch) {
        const current = endpoints.get(endpointId);
        if (!current) continue; // deleted meanwhile, with its deliveries
        const delivery = deliveries.get(id);
        // The lease ran out and another instance took over (or the outcome is already recorded).
        if (!delivery || delivery.lease_owner !== owner || delivery.state !== 'pending') continue;
        const status = outcome.status;
        const attempts = Number(delivery.attempts) + 1;
        const common = {
          attempts,
          lease_owner: null,
          lease_until: null,
          last_status: status,
          last_error: outcome.error,
          last_duration_ms: outcome.durationMs,
          last_attempt_at: at,
        };
        // What later outcomes of this batch see.
        delivery.lease_owner = null;
        if (kind === 'success') {
          delivery.state = 'succeeded';
          await updateDelivery(tx, id, { ...common, state: 'succeeded', next_attempt_at: null });
          if (current.failing_since !== null) await clearFailingSince(tx, endpointId);
          current.failing_since = null;
          continue;
        }
        if (kind === 'gone') {
          delivery.state = 'failed';
          await updateDelivery(tx, id, { ...common, state: 'failed', next_attempt_at: null });
          await updateEndpointRow(tx, endpointId, {
            status: 'disabled',
            disabled_reason: 'the receiver answered 410 Gone',
            updated_at: at,
          });
          current.status = 'disabled';
          continue;
        }
        const delay = retryDelayMs(this.options.retryDelaysSeconds, attempts);
        delivery.state = delay === null ? 'failed' : 'pending';
        await updateDelivery(tx, id, {
          ...common,
          state: delay === null ? 'failed' : 'pending',
          next_attempt_at: delay === null ? null : new Date(now + delay).toISOString(),
        });
        if (current.failing_since === null) {
          await updateEndpointRow(tx, endpointId, { failing_since: at });
          current.failing_since = at;
        } else if (
          current.status === 'active' &&
          Date.parse(current.failing_since) <= now - DISABLE_AFTER_FAILING_MS
        ) {
          await updateEndpointRow(tx, endpointId, {
            status: 'disabled',
            disabled_reason: `every delivery failed for 5 days (last: ${status !== null ? `status ${status}` : outcome.error})`,
            updated_at: at,
          });
          current.status = 'disabled';
        }
      }
    });
  }
}
