import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';

/** How often the event loop's delay and the requests waiting are read and the shed share adjusted. */
const SAMPLE_INTERVAL_MS = 50;
/** Shedding starts only once the samples of this long a time in a row showed a queue and a slow loop. */
const WINDOW_MS = 1_000;
/** ...of which at least this share must have been over the target (a lone stall is not overload). */
const WINDOW_OVER_SHARE = 0.8;
/** Change of the shed share per sample, per unit of relative error (clamped to -1..4). */
const GAIN = 0.05;
/** The fastest the share moves in one sample (up, and down once the queue has emptied). */
const MAX_STEP = 4 * GAIN;
/**
 * "More than a few requests": a sample shows a queue only when the requests it received met, on
 * average, more than this many others being answered or read in the same turn of the loop. A client
 * that sends one request at a time always meets none; ten clients at once (a benchmark's closed loop
 * of 10 connections, a small fleet of terminals) meet at most nine: 4 shed such a closed loop on a
 * loaded machine (the soak's capacity probe: 272 of 1,331), where latency stays bounded by the ten.
 */
const QUEUE_MIN_REQUESTS = 10;
/** Starting (migrations, schema compilation, first JIT) lags the loop: shedding by delay starts this late. */
const ARM_AFTER_MS = 1_000;
/** The delay histogram's timer period: it records whole periods, so the delay is the mean less this. */
const RESOLUTION_MS = 10;

/** One sample: when, the requests received, how many others they met in all, delay above target. */
interface Sample {
  at: number;
  arrivals: number;
  met: number;
  over: boolean;
}

/** Whether the requests of these samples met, on average, more than a few others (a queue). */
function queued(samples: readonly Sample[]): boolean {
  let arrivals = 0;
  let met = 0;
  for (const sample of samples) {
    arrivals += sample.arrivals;
    met += sample.met;
  }
  return arrivals > 0 && met / arrivals > QUEUE_MIN_REQUESTS;
}

export interface OverloadGateOptions {
  /** More requests being answered at once than this: new ones are shed (0: no limit). */
  maxInFlight: number;
  /** Event-loop delay the adaptive share aims to hold (0: no shedding by delay). */
  targetEventLoopDelayMs: number;
  /** Requests never shed (`/healthz`: the process is alive, only busy). */
  exempt: (path: string) => boolean;
  /** Writes the 503 answer (status, headers, body) of a shed request. */
  answerShed: (request: IncomingMessage, response: ServerResponse) => void;
  /** Called once per shed request (metrics). */
  onShed: () => void;
  random?: () => number;
}

/**
 * Overload is shed before Fastify sees the request. A shed answer costs a fraction of a served one
 * only if it is written here, on the raw request: routed through Fastify's hooks and error handler,
 * a 503 cost about 70% of a `GET /me` (measured, docs/operations.md), so at twice the capacity even
 * shedding everything could not keep up with reading the requests.
 *
 * Shedding protects requests that wait; a request that waits behind nobody is never shed. Signals:
 * - requests in flight (counted down on the response's `close`, which every response emits, also one
 *   cut off by the client while it was written): a hard limit, for requests that pile up inside the
 *   process waiting for the database;
 * - the queue and the loop's delay together, for requests that pile up outside the process (in
 *   socket buffers: Node reads a request only when the loop gets to its socket, so a backlog shows as
 *   many requests read in one turn of the loop, each turn longer). Each request notes how many it
 *   meets: those still being answered, or read before it in the same turn. Every 50 ms a sample is
 *   taken: the loop's mean delay, and whether the requests of the sample met more than a few others
 *   on average (a queue). Shedding starts only once a whole second of samples showed a queue, most
 *   of them with the delay above target: a slow request, a garbage collection or a neighbour's CPU
 *   use lags the loop but makes no queue, and a lone client is never shed. While shedding, the share
 *   moves by 0.05 times the relative error between the delay and the target (clamped to -1..4, an
 *   integral controller that settles where the instance holds its target, shedding the excess), and
 *   as soon as a sample shows no queue it falls by 0.2 per sample, as fast as it can rise.
 *   Besides, a request that meets no other one is admitted whatever the share.
 * Load shedding only: correctness never depends on these per-process figures.
 */
export class OverloadGate {
  /** Responses admitted and not yet closed. */
  private readonly open = new Set<ServerResponse>();
  /** Set once the server drains (shutdown): no connection is kept alive any more. */
  private draining: Server | null = null;
  private share = 0;
  /** Requests read since the loop last reached its check phase (one turn). */
  private turnArrivals = 0;
  /** This sample's requests, and how many others they met in total. */
  private sampleArrivals = 0;
  private sampleMet = 0;
  /** Since when the samples have shown a queue (null: the last one showed none). */
  private queuedSince: number | null = null;
  /** The samples of the last WINDOW_MS. */
  private readonly window: Sample[] = [];
  private histogram: IntervalHistogram | null = null;
  private timer: NodeJS.Timeout | null = null;
  private armTimer: NodeJS.Timeout | null = null;
  private readonly random: () => number;
  private readonly endTurn = () => {
    this.turnArrivals = 0;
  };

  constructor(private readonly options: OverloadGateOptions) {
    this.random = options.random ?? Math.random;
  }

  /** The share of new requests currently shed by delay (0..1). */
  get shedShare(): number {
    return this.share;
  }

  /** Requests admitted and not yet answered. */
  get requestsInFlight(): number {
    return this.open.size;
  }

  /** Starts sampling the loop's delay, a second from now. */
  arm(): void {
    if (this.options.targetEventLoopDelayMs <= 0 || this.armTimer || this.timer) return;
    this.armTimer = setTimeout(() => {
      this.armTimer = null;
      this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
      this.histogram.enable();
      this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
      this.timer.unref();
    }, ARM_AFTER_MS);
    this.armTimer.unref();
  }

  stop(): void {
    if (this.armTimer) clearTimeout(this.armTimer);
    if (this.timer) clearInterval(this.timer);
    this.histogram?.disable();
    this.armTimer = this.timer = this.histogram = null;
    this.share = 0;
    this.window.length = 0;
    this.queuedSince = null;
  }

  /**
   * One controller step (exposed for unit tests), from a sample taken at `now`: the loop's mean delay
   * in milliseconds, the requests received and how many others they met in all.
   */
  step(delayMs: number, arrivals: number, met: number, now = performance.now()): void {
    const target = this.options.targetEventLoopDelayMs;
    this.queuedSince ??= now;
    this.window.push({ at: now, arrivals, met, over: delayMs > target });
    while (this.window[0]!.at <= now - WINDOW_MS) this.window.shift();
    // The last sample that received requests decides (one that received none, in a loop stalled
    // between two samples, is no evidence); two in a row with none: the queue is gone.
    const last = this.window.at(-1)!;
    const previous = this.window.at(-2);
    const evidence = last.arrivals > 0 ? [last] : previous && previous.arrivals > 0 ? [previous] : [];
    if (!queued(evidence)) {
      // No queue (or it has emptied): nothing waits that shedding would protect. Starting again
      // takes a whole second of queue again.
      this.share = Math.max(0, this.share - MAX_STEP);
      this.queuedSince = null;
      return;
    }
    if (this.share === 0) {
      // Not before a whole second of queue, most of its samples with the loop above target.
      if (now - this.queuedSince < WINDOW_MS - SAMPLE_INTERVAL_MS / 2 || !queued(this.window)) return;
      if (this.window.filter((s) => s.over).length < WINDOW_OVER_SHARE * this.window.length) return;
    }
    const error = Math.max(-1, Math.min(4, (delayMs - target) / target));
    this.share = Math.max(0, Math.min(1, this.share + GAIN * error));
  }

  private sample(): void {
    const histogram = this.histogram;
    if (!histogram) return;
    // No sample in the window: the loop was held for the whole window, at least that long a delay.
    const mean = histogram.count > 0 ? Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS) : SAMPLE_INTERVAL_MS;
    histogram.reset();
    const { sampleArrivals, sampleMet } = this;
    this.sampleArrivals = this.sampleMet = 0;
    this.step(mean, sampleArrivals, sampleMet);
  }

  /** True when the request may go on to the application; otherwise it has been answered 503. */
  admit(request: IncomingMessage, response: ServerResponse): boolean {
    if (this.draining) response.shouldKeepAlive = false;
    const path = request.url ?? '/';
    if (this.options.exempt(path)) return true;
    // Others this request meets: being answered, or read before it in this turn of the loop.
    if (this.turnArrivals === 0) setImmediate(this.endTurn);
    const met = Math.max(this.open.size, this.turnArrivals);
    this.turnArrivals++;
    this.sampleArrivals++;
    this.sampleMet += met;
    const { maxInFlight } = this.options;
    const overLimit = maxInFlight > 0 && this.open.size >= maxInFlight;
    if (overLimit || (met > 0 && this.share > 0 && this.random() < this.share)) {
      this.options.onShed();
      this.options.answerShed(request, response);
      return false;
    }
    this.open.add(response);
    response.once('close', () => {
      this.open.delete(response);
      // Its connection is idle now (or closing): close it rather than keep it alive.
      const server = this.draining;
      if (server) setImmediate(() => server.closeIdleConnections());
    });
    return true;
  }

  /**
   * Shutdown: from now on every answer says `Connection: close` (those in flight too, unless their
   * headers are out already: their connection is closed once they end), and idle keep-alive
   * connections are closed now. A connection kept alive would otherwise hold `server.close()` until
   * the client or the keep-alive timeout closes it.
   */
  drain(server: Server): void {
    this.draining = server;
    for (const response of this.open) if (!response.headersSent) response.shouldKeepAlive = false;
    server.closeIdleConnections();
  }
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Fastify's `serverFactory`: the HTTP/1.1 server Fastify would create (with the same timeouts), with
 * the overload gate in front of Fastify's handler.
 */
export function gatedServerFactory(gate: OverloadGate) {
  return (
    handler: Handler,
    options: {
      http?: object | null;
      keepAliveTimeout?: number;
      requestTimeout?: number;
      connectionTimeout?: number;
      maxRequestsPerSocket?: number | null;
    },
  ): Server => {
    const server = createServer(options.http ?? {}, (request, response) => {
      if (gate.admit(request, response)) handler(request, response);
    });
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}
