import ipaddr from 'ipaddr.js';
export type DatabaseUrl = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface Config {
  readonly databaseUrl: string;
  readonly database: DatabaseUrl;
  readonly port: number;
  readonly host: string;
  /** Explicit PUBLIC_BASE_URL, or null when derived from host and port. */
  readonly publicBaseUrlSetting: string | null;
  readonly problemBaseSetting: string | null;
  readonly trustProxy: boolean | string[];
  readonly logLevel: string;
  readonly rateLimitPerMinute: number;
  readonly tokenRateLimitPerMinute: number;
  readonly deprecation: { readonly sunset: string; readonly link: string | null } | null;
  /** METRICS_PORT: where `GET /metrics` (Prometheus text) is served on HOST; null: no metrics endpoint. */
  readonly metricsPort: number | null;
  /** OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: while requests queue and the loop lags more than this, a share is shed with 503; 0: off. */
  readonly overloadMaxEventLoopDelayMs: number;
  /** OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: above this share of busy event-loop time (0..1) requests are shed; 0 turns it off. */
  readonly overloadMaxEventLoopUtilization: number;
  /** OVERLOAD_MAX_IN_FLIGHT: requests being answered at once above which new ones are shed; 0 turns it off. */
  readonly overloadMaxInFlight: number;
  /** REDIS_URL: rate limits counted across every instance sharing this Redis; null: per instance. */
  readonly redisUrl: string | null;
  /** EVENT_RETENTION_DAYS: how long the change feed keeps events. */
  readonly eventRetentionDays: number;
  /** AUTO_CLOCK_OUT_INTERVAL_MS: how often this instance closes sessions due for the automatic clock-out; 0: never. */
  readonly autoClockOutIntervalMs: number;
  /** CONSOLE_SESSION_IDLE_MINUTES: a console session unused this long ends. */
  readonly consoleSessionIdleMinutes: number;
  /** CONSOLE_SESSION_MAX_HOURS: a console session ends this long after sign-in, however busy. */
  readonly consoleSessionMaxHours: number;
  /** CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: console sign-in attempts per email address per 15 minutes. */
  readonly consoleSignInLimitPerAccount: number;
  /** CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: console sign-in attempts per client address per 15 minutes. */
  readonly consoleSignInLimitPerAddress: number;
  /** Outbound webhook deliveries (issue 22). */
  readonly webhooks: WebhookConfig;
  /**
   * SSO_ALLOWED_HOSTS: addresses and CIDR ranges an identity provider (its discovery, token, JWKS and
   * UserInfo endpoints) may resolve to even when loopback, private or link-local (issue 34).
   */
  readonly ssoAllowedHosts: readonly string[];
  /** SHUTDOWN_GRACE_SECONDS: how long a SIGTERM's drain may take before the process exits 1 anyway. */
  readonly shutdownGraceSeconds: number;
  /** EXCEPTIONS_JOB=false: this instance does not run the attendance-exceptions job (issue 33); EXCEPTIONS_JOB_INTERVAL_MS: how often it does. */
  readonly exceptionsJob: { readonly enabled: boolean; readonly intervalMs: number };
}

export interface WebhookConfig {
  /** WEBHOOK_ALLOW_HTTP=true: plain `http` endpoint URLs are accepted (tests, closed networks); otherwise `https` only. */
  readonly allowHttp: boolean;
  /** WEBHOOK_ALLOWED_HOSTS: addresses and CIDR ranges a receiver may resolve to even when loopback, private or link-local. */
  readonly allowedHosts: readonly string[];
  /** WEBHOOK_RETRY_DELAYS: seconds to wait before each retry (jittered ±20%); after the last one the delivery has failed. */
  readonly retryDelaysSeconds: readonly number[];
  /** WEBHOOK_ENCRYPTION_KEY: 32 bytes, base64, that encrypt the endpoints' secrets; null: a key kept in the database. */
  readonly encryptionKey: Buffer | null;
  /** WEBHOOK_POLL_INTERVAL_MS: how often each instance looks for new events and due deliveries. */
  readonly pollIntervalMs: number;
  /** WEBHOOK_DISPATCH=false: this instance sends no deliveries (another one does). */
  readonly dispatch: boolean;
  /** WEBHOOK_LEASE_SECONDS: how long a claimed delivery is held; a crashed instance's claims are sent again after it. */
  readonly leaseSeconds: number;
  /**
   * WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: attempts of one endpoint in flight at once, across instances.
   * Deliveries carry no order promise; 1 sends an endpoint's first attempts one at a time, oldest due first.
   */
  readonly maxInFlightPerEndpoint: number;
}

/**
 * The default retry schedule, in seconds after each failed attempt: 5 s, 30 s, 2 min, 10 min, 30 min,
 * 1 h, 2 h, 4 h, 8 h, 12 h, 24 h, 24 h: thirteen attempts over about 3 days 4 hours (each delay
 * jittered by ±20%).
 */
export const DEFAULT_WEBHOOK_RETRY_DELAYS = [
  5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 86_400, 86_400,
] as const;

function booleanFlag(name: string, raw: string | undefined, fallback: boolean): boolean {
  const value = (raw ?? '').trim();
  if (value === '') return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(`${name} must be true or false`);
}

/** A comma-separated list of addresses and CIDR ranges (WEBHOOK_ALLOWED_HOSTS, SSO_ALLOWED_HOSTS). */
function addressList(name: string, raw: string | undefined): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) throw new ConfigError(`${name}: ${entry} is not an address or CIDR range`);
  }
  return entries;
}

function webhookConfig(env: NodeJS.ProcessEnv): WebhookConfig {
  const allowedHosts = addressList('WEBHOOK_ALLOWED_HOSTS', env.WEBHOOK_ALLOWED_HOSTS);
  let retryDelaysSeconds: readonly number[] = DEFAULT_WEBHOOK_RETRY_DELAYS;
  const delaysRaw = (env.WEBHOOK_RETRY_DELAYS ?? '').trim();
  if (delaysRaw !== '') {
    const parts = delaysRaw.split(',').map((s) => s.trim());
    if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p)))
      throw new ConfigError('WEBHOOK_RETRY_DELAYS must be seconds, comma-separated (e.g. 5,30,120)');
    retryDelaysSeconds = parts.map(Number);
  }
  let encryptionKey: Buffer | null = null;
  const keyRaw = (env.WEBHOOK_ENCRYPTION_KEY ?? '').trim();
  if (keyRaw !== '') {
    encryptionKey = Buffer.from(keyRaw, 'base64');
    if (encryptionKey.length !== 32 || encryptionKey.toString('base64') !== keyRaw)
      throw new ConfigError('WEBHOOK_ENCRYPTION_KEY must be 32 bytes in standard base64');
  }
  return {
    allowHttp: booleanFlag('WEBHOOK_ALLOW_HTTP', env.WEBHOOK_ALLOW_HTTP, false),
    allowedHosts,
    retryDelaysSeconds,
    encryptionKey,
    pollIntervalMs: positiveInteger('WEBHOOK_POLL_INTERVAL_MS', env.WEBHOOK_POLL_INTERVAL_MS, 500),
    dispatch: booleanFlag('WEBHOOK_DISPATCH', env.WEBHOOK_DISPATCH, true),
    // At least the 10 s an attempt may take, or a slow attempt's delivery would be sent twice.
    leaseSeconds: leaseSeconds(env.WEBHOOK_LEASE_SECONDS),
    maxInFlightPerEndpoint: maxInFlightPerEndpoint(env.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT),
  };
}

/** The default of WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT (2 until bench/webhooks.mjs measured it). */
export const DEFAULT_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT = 16;

function maxInFlightPerEndpoint(raw: string | undefined): number {
  const value = positiveInteger(
    'WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT',
    raw,
    DEFAULT_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
  );
  if (value > 64) throw new ConfigError('WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT must be 64 or less');
  return value;
}

function leaseSeconds(raw: string | undefined): number {
  const value = positiveInteger('WEBHOOK_LEASE_SECONDS', raw, 30);
  if (value < 11)
    throw new ConfigError('WEBHOOK_LEASE_SECONDS must be at least 11 (an attempt may take 10 s)');
  return value;
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/punchclock.sqlite';
/** Issuer used when PUBLIC_BASE_URL is unset: fixed so that a token minted by `user token` works on any port. */
export const DEFAULT_TOKEN_ISSUER = 'urn:punchclock';
export const TOKEN_AUDIENCE = 'punchclock-public-api-v1';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {}

export function parseDatabaseUrl(value: string): DatabaseUrl {
  if (value.startsWith('postgres://') || value.startsWith('postgresql://'))
    return { kind: 'postgres', url: value };
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError('DATABASE_URL sqlite: needs a file path');
    return { kind: 'sqlite', path };
  }
  throw new ConfigError('DATABASE_URL must start with sqlite:, postgres:// or postgresql://');
}

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new ConfigError(`${name} must be a positive integer`);
  return Number(raw);
}

function nonNegativeInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number (0 or more)`);
  return Number(raw);
}

function optionalPort(name: string, raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === '') return null;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 65535) throw new ConfigError(`${name} must be 0..65535`);
  return Number(raw);
}

/*
 * The event-loop delay the overload gate holds by shedding a share of new requests once requests
 * queue (http/overload-gate.ts). A loop answering at its capacity with a few connections lags a few
 * milliseconds; a backlog of requests in its socket buffers makes each turn, and so the delay, grow
 * with the backlog. Shedding starts only after a second of queue with the loop above this, so a slow
 * request, a pause or a neighbour's CPU use sheds nothing (docs/operations.md). 0 turns it off.
 */
const DEFAULT_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS = 20;
/**
 * Requests in flight at once beyond which new ones are shed: an instance answers one request at a
 * time per core, so a deeper queue only adds waiting (measured: docs/operations.md).
 */
const DEFAULT_OVERLOAD_MAX_IN_FLIGHT = 128;
/** Off by default: a saturated loop is also an instance running at exactly its capacity. */
const DEFAULT_OVERLOAD_MAX_EVENT_LOOP_UTILIZATION = 0;

function fraction(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(raw)) throw new ConfigError(`${name} must be a number from 0 to 1`);
  return Number(raw);
}

/** The attendance-exceptions job of issue 33: on every instance unless EXCEPTIONS_JOB=false, once a minute. */
function exceptionsJobConfig(env: NodeJS.ProcessEnv): Config['exceptionsJob'] {
  return {
    enabled: booleanFlag('EXCEPTIONS_JOB', env.EXCEPTIONS_JOB, true),
    intervalMs: positiveInteger('EXCEPTIONS_JOB_INTERVAL_MS', env.EXCEPTIONS_JOB_INTERVAL_MS, 60_000),
  };
}

/** V1_SUNSET (and V1_DEPRECATION_LINK): the deprecation headers, or null. */
function deprecationOf(env: NodeJS.ProcessEnv): Config['deprecation'] {
  const sunset = env.V1_SUNSET?.trim() || null;
  if (!sunset) return null;
  const date = new Date(sunset);
  if (Number.isNaN(date.getTime())) throw new ConfigError('V1_SUNSET must be a date or date-time');
  return { sunset: date.toUTCString(), link: env.V1_DEPRECATION_LINK?.trim() || null };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const portRaw = env.PORT ?? '3000';
  if (!/^\d+$/.test(portRaw) || Number(portRaw) > 65535) throw new ConfigError('PORT must be 0..65535');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const trustRaw = (env.TRUST_PROXY ?? '').trim();
  let trustProxy: boolean | string[] = false;
  if (trustRaw === 'true') trustProxy = true;
  else if (trustRaw !== '' && trustRaw !== 'false')
    trustProxy = trustRaw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const deprecation = deprecationOf(env);
  return Object.freeze({
    databaseUrl,
    database: parseDatabaseUrl(databaseUrl),
    port: Number(portRaw),
    host: env.HOST || '127.0.0.1',
    publicBaseUrlSetting: env.PUBLIC_BASE_URL ? env.PUBLIC_BASE_URL.replace(/\/+$/, '') : null,
    problemBaseSetting: env.PROBLEM_BASE ? env.PROBLEM_BASE.replace(/\/+$/, '') : null,
    trustProxy,
    logLevel,
    rateLimitPerMinute: positiveInteger('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 300),
    tokenRateLimitPerMinute: positiveInteger(
      'TOKEN_RATE_LIMIT_PER_MINUTE',
      env.TOKEN_RATE_LIMIT_PER_MINUTE,
      60,
    ),
    deprecation,
    metricsPort: optionalPort('METRICS_PORT', env.METRICS_PORT),
    overloadMaxEventLoopUtilization: fraction(
      'OVERLOAD_MAX_EVENT_LOOP_UTILIZATION',
      env.OVERLOAD_MAX_EVENT_LOOP_UTILIZATION,
      DEFAULT_OVERLOAD_MAX_EVENT_LOOP_UTILIZATION,
    ),
    overloadMaxInFlight: nonNegativeInteger(
      'OVERLOAD_MAX_IN_FLIGHT',
      env.OVERLOAD_MAX_IN_FLIGHT,
      DEFAULT_OVERLOAD_MAX_IN_FLIGHT,
    ),
    redisUrl: env.REDIS_URL?.trim() || null,
    eventRetentionDays: positiveInteger('EVENT_RETENTION_DAYS', env.EVENT_RETENTION_DAYS, 30),
    autoClockOutIntervalMs: nonNegativeInteger(
      'AUTO_CLOCK_OUT_INTERVAL_MS',
      env.AUTO_CLOCK_OUT_INTERVAL_MS,
      30_000,
    ),
    consoleSessionIdleMinutes: positiveInteger(
      'CONSOLE_SESSION_IDLE_MINUTES',
      env.CONSOLE_SESSION_IDLE_MINUTES,
      30,
    ),
    consoleSessionMaxHours: positiveInteger('CONSOLE_SESSION_MAX_HOURS', env.CONSOLE_SESSION_MAX_HOURS, 12),
    consoleSignInLimitPerAccount: positiveInteger(
      'CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT',
      env.CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT,
      10,
    ),
    consoleSignInLimitPerAddress: positiveInteger(
      'CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS',
      env.CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS,
      50,
    ),
    webhooks: webhookConfig(env),
    exceptionsJob: exceptionsJobConfig(env),
    ssoAllowedHosts: addressList('SSO_ALLOWED_HOSTS', env.SSO_ALLOWED_HOSTS),
    shutdownGraceSeconds: positiveInteger('SHUTDOWN_GRACE_SECONDS', env.SHUTDOWN_GRACE_SECONDS, 20),
    overloadMaxEventLoopDelayMs: nonNegativeInteger(
      'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS',
      env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
      DEFAULT_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
    ),
  });
}

/** The base URL and derived values once the real listening port is known. */
export function resolveUrls(config: Config, actualPort: number) {
  const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
  const publicBaseUrl = config.publicBaseUrlSetting ?? `http://${hostForUrl}:${actualPort}`;
  return {
    publicBaseUrl,
    problemBase: config.problemBaseSetting ?? `${publicBaseUrl}/problems`,
    tokenIssuer: config.publicBaseUrlSetting ?? DEFAULT_TOKEN_ISSUER,
  };
}
