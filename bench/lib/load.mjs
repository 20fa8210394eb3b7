// One load run: autocannon at full speed, or the paced runner at a fixed rate.
import autocannon from 'autocannon';
import { runPaced, summary } from './paced.mjs';
import { cpuTimeOf, machineCpuTicks, sampleRss, stealShare } from './processes.mjs';

/** As fast as the server answers, with autocannon. */
async function runFlatOut({ url, requests, connections, duration, title }) {
  const raw = [];
  const instance = autocannon({
    url,
    requests,
    connections,
    duration,
    timeout: 10,
    // autocannon checks for the end of a run on each sample tick (default every second): with 100 ms
    // a run lasts its duration, not the next whole second. Throughput is computed from the total.
    sampleInt: 100,
    title,
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => raw.push(responseTime));
  const result = await instance;
  return {
    durationS: result.duration,
    statusCounts: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, Number(count)]),
    ),
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    rawLatency: summary(raw),
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** At `rate` requests/s, with the paced runner. */
async function runAtRate({ url, requests, connections, duration, rate }) {
  const paced = await runPaced({ url, requests, connections, duration, rate });
  return {
    paced: true,
    durationS: paced.durationS,
    statusCounts: paced.statusCounts,
    latency: paced.latency,
    rawLatency: paced.serviceLatency,
    sendLag: paced.sendLag,
    unsent: paced.unsent,
    errors: paced.errors + paced.unsent,
    timeouts: 0,
  };
}

/**
 * Runs `requests` (autocannon request objects) against `url` for `duration` seconds with
 * `connections` connections: as fast as the server answers with autocannon, or at a fixed
 * `overallRate` (requests/s) with the paced runner. Samples the server's RSS meanwhile.
 * At full speed, latencies are autocannon's (whole milliseconds) plus our own sub-millisecond
 * percentiles of the raw response times; at a fixed rate, `latency` counts from the moment each
 * request was due and `rawLatency` from the moment it was written.
 */
export async function runLoad({ url, requests, connections, duration, overallRate, pid, title }) {
  const rss = pid ? sampleRss(pid, 100) : null;
  const serverCpuBefore = pid ? cpuTimeOf(pid) : null;
  const harnessCpuBefore = process.cpuUsage();
  const machineBefore = machineCpuTicks();
  const run = overallRate
    ? await runAtRate({ url, requests, connections, duration, rate: overallRate })
    : await runFlatOut({ url, requests, connections, duration, title });
  const memory = rss ? rss.stop() : null;
  const serverCpuMs = pid && serverCpuBefore !== null ? cpuTimeOf(pid) - serverCpuBefore : null;
  const harnessCpu = process.cpuUsage(harnessCpuBefore);
  const steal = stealShare(machineBefore, machineCpuTicks());
  const total = Object.values(run.statusCounts).reduce((a, b) => a + b, 0);
  const ok = Object.entries(run.statusCounts)
    .filter(([status]) => status.startsWith('2'))
    .reduce((a, [, n]) => a + n, 0);
  return {
    title,
    connections,
    overallRate: overallRate ?? null,
    ...run,
    requests: total,
    rps: total / run.durationS,
    okRps: ok / run.durationS,
    non2xx: total - ok,
    // Server CPU per request (µs) and the load generator's own CPU share: context for the ratios.
    serverCpuUsPerRequest: serverCpuMs !== null && total > 0 ? (serverCpuMs * 1000) / total : null,
    serverCpuShare: serverCpuMs !== null ? serverCpuMs / (run.durationS * 1000) : null,
    harnessCpuShare: (harnessCpu.user + harnessCpu.system) / 1000 / (run.durationS * 1000),
    // A virtual machine's CPUs lose this share of their time to other guests: the run measured less.
    stealShare: steal,
    peakRssKb: memory?.peakKb ?? null,
    rssSamples: memory?.samples ?? null,
  };
}
