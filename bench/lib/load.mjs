// One load run with autocannon's programmatic API.
import autocannon from 'autocannon';
import { runPaced } from './paced.mjs';
import { cpuTimeOf, machineCpuTicks, sampleRss, stealShare } from './processes.mjs';

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
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
  if (overallRate) {
    const paced = await runPaced({ url, requests, connections, duration, rate: overallRate });
    const memory = rss ? rss.stop() : null;
    const serverCpuMs = pid && serverCpuBefore !== null ? cpuTimeOf(pid) - serverCpuBefore : null;
    const harnessCpu = process.cpuUsage(harnessCpuBefore);
    const ok = Object.entries(paced.statusCounts)
      .filter(([status]) => status.startsWith('2'))
      .reduce((a, [, n]) => a + n, 0);
    return {
      title,
      connections,
      overallRate,
      paced: true,
      durationS: paced.durationS,
      requests: paced.requests,
      rps: paced.requests / paced.durationS,
      okRps: ok / paced.durationS,
      latency: paced.latency,
      rawLatency: paced.serviceLatency,
      sendLag: paced.sendLag,
      unsent: paced.unsent,
      statusCounts: paced.statusCounts,
      non2xx: paced.requests - ok,
      errors: paced.errors + paced.unsent,
      timeouts: 0,
      serverCpuUsPerRequest:
        serverCpuMs !== null && paced.requests > 0 ? (serverCpuMs * 1000) / paced.requests : null,
      serverCpuShare: serverCpuMs !== null ? serverCpuMs / (paced.durationS * 1000) : null,
      harnessCpuShare: (harnessCpu.user + harnessCpu.system) / 1000 / (paced.durationS * 1000),
      stealShare: stealShare(machineBefore, machineCpuTicks()),
      peakRssKb: memory?.peakKb ?? null,
      rssSamples: memory?.samples ?? null,
    };
  }
  const raw = [];
  const instance = autocannon({
    url,
    requests,
    connections,
    duration,
    ...(overallRate ? { overallRate } : {}),
    timeout: 10,
    // autocannon checks for the end of a run on each sample tick (default every second): with 100 ms
    // a run lasts its duration, not the next whole second. Throughput is computed from the total.
    sampleInt: 100,
    title,
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => raw.push(responseTime));
  const result = await instance;
  const memory = rss ? rss.stop() : null;
  const serverCpuMs = pid && serverCpuBefore !== null ? cpuTimeOf(pid) - serverCpuBefore : null;
  const harnessCpu = process.cpuUsage(harnessCpuBefore);
  const steal = stealShare(machineBefore, machineCpuTicks());
  raw.sort((a, b) => a - b);
  const statusCounts = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, Number(count)]),
  );
  const total = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  const ok = Object.entries(statusCounts)
    .filter(([status]) => status.startsWith('2'))
    .reduce((a, [, n]) => a + n, 0);
  return {
    title,
    connections,
    overallRate: overallRate ?? null,
    durationS: result.duration,
    requests: total,
    rps: total / result.duration,
    okRps: ok / result.duration,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    rawLatency: {
      p50: percentile(raw, 50),
      p99: percentile(raw, 99),
      mean: raw.length ? raw.reduce((a, b) => a + b, 0) / raw.length : null,
    },
    statusCounts,
    non2xx: total - ok,
    errors: result.errors,
    timeouts: result.timeouts,
    // Server CPU per request (µs) and the load generator's own CPU share: context for the ratios.
    serverCpuUsPerRequest: serverCpuMs !== null && total > 0 ? (serverCpuMs * 1000) / total : null,
    serverCpuShare: serverCpuMs !== null ? serverCpuMs / (result.duration * 1000) : null,
    harnessCpuShare: (harnessCpu.user + harnessCpu.system) / 1000 / (result.duration * 1000),
    // A virtual machine's CPUs lose this share of their time to other guests: the run measured less.
    stealShare: steal,
    peakRssKb: memory?.peakKb ?? null,
    rssSamples: memory?.samples ?? null,
  };
}
