import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** How often the event loop's delay is read and the share of requests shed adjusted. */
const SAMPLE_INTERVAL_MS = 50;
/** Change of the shed share per sample, per unit of relative error (clamped to -1..4). */
const GAIN = 0.05;
/** Starting (migrations, schema compilation, first JIT) lags the loop: shedding by delay starts this late. */
const ARM_AFTER_MS = 1_000;
/** The delay histogram's timer period: it records whole periods, so the delay is the mean less this. */
const RESOLUTION_MS = 10;

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
 * Two signals:
 * - requests in flight (counted down on the response's `close`, which every response emits, also one
 *   cut off by the client while it was written): a hard limit, for requests that pile up inside the
 *   process waiting for the database;
 * - the event loop's delay, for requests that pile up outside it (in socket buffers: Node reads a
 *   request only when the loop gets to its socket, so a backlog shows as longer loop turns). Every
 *   50 ms the share of new requests shed moves by 0.05 times the relative error between the mean delay
 *   and the target (clamped to -1..4): an integral controller that settles where the instance keeps
 *   its target delay, shedding only the excess, instead of shedding everything while a threshold is
 *   crossed and nothing once it is not.
 * Load shedding only: correctness never depends on these per-process figures.
 */
export class OverloadGate {
  private inFlight = 0;
  private share = 0;
  private histogram: IntervalHistogram | null = null;
  private timer: NodeJS.Timeout | null = null;
  private armTimer: NodeJS.Timeout | null = null;
  private readonly random: () => number;

  constructor(private readonly options: OverloadGateOptions) {
    this.random = options.random ?? Math.random;
  }

  /** The share of new requests currently shed by delay (0..1). */
  get shedShare(): number {
    return this.share;
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
  }

  /** One controller step from a mean delay in milliseconds (exposed for unit tests). */
  adjust(meanDelayMs: number): void {
    const target = this.options.targetEventLoopDelayMs;
    const error = Math.max(-1, Math.min(4, (meanDelayMs - target) / target));
    this.share = Math.max(0, Math.min(1, this.share + GAIN * error));
  }

  private sample(): void {
    const histogram = this.histogram;
    if (!histogram) return;
    // No sample in the window: the loop was held for the whole window, at least that long a delay.
    const mean = histogram.count > 0 ? Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS) : SAMPLE_INTERVAL_MS;
    histogram.reset();
    this.adjust(mean);
  }

  /** True when the request may go on to the application; otherwise it has been answered 503. */
  admit(request: IncomingMessage, response: ServerResponse): boolean {
    const path = request.url ?? '/';
    if (this.options.exempt(path)) return true;
    const { maxInFlight } = this.options;
    const overLimit = maxInFlight > 0 && this.inFlight >= maxInFlight;
    if (overLimit || (this.share > 0 && this.random() < this.share)) {
      this.options.onShed();
      this.options.answerShed(request, response);
      return false;
    }
    if (maxInFlight > 0) {
      this.inFlight++;
      response.once('close', () => this.inFlight--);
    }
    return true;
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
