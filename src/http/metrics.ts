import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type Database } from '../platform/db/database.js';

/**
 * The service's Prometheus metrics (prom-client). Labels carry only bounded values: route templates
 * (never raw paths), methods, status codes, fixed reasons. No company, key, employee or path value.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly requests = new Counter({
    name: 'punchclock_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly requestDuration = new Histogram({
    name: 'punchclock_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by route template, method and status class',
    labelNames: ['route', 'method', 'status_class'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'punchclock_rate_limit_refusals_total',
    help: 'Requests refused with 429, by limiter (api: every authenticated request; token: the token endpoint)',
    labelNames: ['limiter'] as const,
    registers: [this.registry],
  });

  readonly rateLimitShared = new Gauge({
    name: 'punchclock_rate_limit_shared',
    help: 'With REDIS_URL: 1 while rate limits are counted in Redis across the fleet, 0 while counted per instance (Redis away)',
    registers: [this.registry],
  });

  readonly idempotency = new Counter({
    name: 'punchclock_idempotency_outcomes_total',
    help: 'Writes with an Idempotency-Key that were not run afresh: replayed, in flight (409) or reused (422)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly batchForms = new Counter({
    name: 'punchclock_batch_forms_total',
    help: 'Batches of punches by how they ran (issue 32): set (read once, multi-row writes), together (one transaction, punch by punch) or one_by_one (a transaction per punch), and why not as a set (reason)',
    labelNames: ['form', 'reason'] as const,
    registers: [this.registry],
  });

  readonly tokensIssued = new Counter({
    name: 'punchclock_tokens_issued_total',
    help: 'Access tokens issued by the token endpoint',
    registers: [this.registry],
  });

  readonly tokensRefused = new Counter({
    name: 'punchclock_tokens_refused_total',
    help: 'Token requests refused, by OAuth error (invalid_request, invalid_client, unsupported_grant_type, rate_limited, …)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly consoleSignIns = new Counter({
    name: 'punchclock_console_sign_ins_total',
    help: 'Console sign-ins by method (password, sso) and outcome (success, or the error name of the refusal)',
    labelNames: ['method', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly databaseErrors = new Counter({
    name: 'punchclock_database_unavailable_total',
    help: 'Requests answered 503 because the database could not be reached or lost the connection',
    registers: [this.registry],
  });

  readonly storageFull = new Counter({
    name: 'punchclock_storage_full_refusals_total',
    help: 'Writes answered 503 storage_full because the disk holding the database is full',
    registers: [this.registry],
  });

  readonly shed = new Counter({
    name: 'punchclock_overload_shed_total',
    help: 'Requests answered 503 at once because the instance was overloaded',
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'punchclock_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (success: 2xx; gone: 410, endpoint disabled; failure: other status, timeout or network error; refused: the target address was refused)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveryDuration = new Histogram({
    name: 'punchclock_webhook_attempt_duration_seconds',
    help: 'Time a webhook delivery attempt took, by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor(database: Database) {
    collectDefaultMetrics({ register: this.registry, prefix: 'punchclock_' });
    const pool = (
      name: string,
      help: string,
      read: (stats: { total: number; idle: number; waiting: number }) => number,
    ) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const stats = database.poolStats();
          if (stats) this.set(read(stats));
        },
      });
    pool('punchclock_db_pool_connections', 'PostgreSQL connections open in the pool', (s) => s.total);
    pool('punchclock_db_pool_idle_connections', 'PostgreSQL connections idle in the pool', (s) => s.idle);
    pool(
      'punchclock_db_pool_waiting_requests',
      'Queries waiting for a PostgreSQL connection',
      (s) => s.waiting,
    );
    new Gauge({
      name: 'punchclock_database_writable',
      help: 'Whether writes find room on the disk: 0 after a write refused for space (a full disk), 1 again after 20 inserts in a row succeed',
      registers: [this.registry],
      collect() {
        this.set(database.storage().writable ? 1 : 0);
      },
    });
  }
}

/** `GET /metrics` on its own port (METRICS_PORT), apart from the API: nothing else is served there. */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
