// An open-loop run at a fixed rate, for the "p99 at half the maximum throughput" target.
//
// autocannon's `overallRate` is not a steady rate: each connection sends its whole share of a second
// back to back at the start of that second, then waits for the next one, so "half the maximum rate"
// is a burst at the maximum rate followed by silence. Its coordinated-omission correction then adds
// a synthetic sample for every millisecond of each response beyond the first (it takes the expected
// interval as ⌈1/rate⌉ = 1 ms, whatever the rate), which turns a 10 ms burst response into ten
// samples. This runner spaces requests evenly instead (request i is due at start + i/rate) and
// measures each response from the moment its request was due, as wrk2 does: a request that waits
// for a free connection because the server fell behind is counted with its wait.
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/** Percentiles, maximum and mean of latencies in milliseconds (sorts `values` in place). */
export function summary(values) {
  values.sort((a, b) => a - b);
  return {
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: values.length ? values[values.length - 1] : null,
    mean: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null,
  };
}

/**
 * Sends `requests` (autocannon request objects: method, path, headers, body, and the optional
 * `setupRequest(request, context)` / `onResponse(status, body, context)` hooks, with one context per
 * connection) to `url` at `rate` requests/s for `duration` seconds over at most `connections`
 * keep-alive connections, one request in flight on each.
 */
export async function runPaced({ url, requests, connections, duration, rate }) {
  const clients = Array.from({ length: connections }, () => ({
    client: new Client(url, { pipelining: 1, keepAliveTimeout: 60_000 }),
    context: {},
    idleSince: 0,
  }));
  const idle = [...clients];
  const due = [];
  const scheduled = []; // latency from the moment the request was due
  const service = []; // latency from the moment it was written
  // How late a request went out although a connection was free when it was due: the load generator's
  // own pauses (its GC, the scheduler, stolen CPU), which the latency from the due time includes.
  const sendLag = [];
  const statusCounts = {};
  let errors = 0;
  let sent = 0;
  let inFlight = 0;
  let template = 0;
  const interval = 1000 / rate;
  const total = Math.floor(rate * duration);
  const start = performance.now();

  let settle;
  const settled = new Promise((resolve) => (settle = resolve));
  const finishIfDone = () => {
    if (sent === total && due.length === 0 && inFlight === 0) settle();
  };

  const send = (slot, dueAt) => {
    const base = requests[template++ % requests.length];
    const request = base.setupRequest ? base.setupRequest({ ...base }, slot.context) : base;
    const written = performance.now();
    sendLag.push(written - Math.max(dueAt, slot.idleSince));
    inFlight++;
    slot.client
      .request({
        method: request.method ?? 'GET',
        path: request.path,
        headers: request.headers,
        body: request.body,
      })
      .then(async (response) => {
        const body = await response.body.text();
        const end = performance.now();
        scheduled.push(end - dueAt);
        service.push(end - written);
        statusCounts[response.statusCode] = (statusCounts[response.statusCode] ?? 0) + 1;
        base.onResponse?.(response.statusCode, body, slot.context);
      })
      .catch(() => {
        errors++;
      })
      .finally(() => {
        inFlight--;
        slot.idleSince = performance.now();
        idle.push(slot);
        dispatch();
        finishIfDone();
      });
  };

  function dispatch() {
    // The connection idle longest first, so that sendLag measures from the earliest free one.
    while (due.length > 0 && idle.length > 0) send(idle.shift(), due.shift());
  }

  let timer;
  const tick = () => {
    const now = performance.now();
    while (sent < total && start + sent * interval <= now) {
      due.push(start + sent * interval);
      sent++;
    }
    dispatch();
    if (sent < total) {
      timer = setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    } else {
      finishIfDone();
    }
  };
  tick();
  // A server that stops answering must not hold the run forever.
  const deadline = setTimeout(settle, (duration + 15) * 1000);
  await settled;
  clearTimeout(deadline);
  clearTimeout(timer);
  const elapsedS = (performance.now() - start) / 1000;
  await Promise.all(clients.map(({ client }) => client.destroy().catch(() => {})));
  const answered = scheduled.length;
  return {
    durationS: elapsedS,
    requests: answered,
    // Requests still waiting for a connection when the deadline passed: the server fell behind.
    unsent: total - sent + due.length,
    statusCounts,
    errors: errors + inFlight,
    latency: summary(scheduled),
    serviceLatency: summary(service),
    sendLag: summary(sendLag),
  };
}
