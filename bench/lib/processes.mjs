// Starting, watching and stopping the server processes under test.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const READY = /listening on (http:\/\/\S+)/;

/**
 * Spawns `node <args>` with `env` and resolves once it prints `listening on http://host:port` on
 * stdout. Everything the process prints on stderr is kept (and shown if it dies early).
 */
export function startProcess(name, args, env, { nodeFlags = [], readyTimeoutMs = 60_000 } = {}) {
  const child = spawn(process.execPath, [...nodeFlags, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: not ready after ${readyTimeoutMs} ms\n${stderr}`)),
      readyTimeoutMs,
    );
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = READY.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
      if (stdout.length > 65_536) stdout = stdout.slice(-4096);
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.length > 65_536) stderr = stderr.slice(-16_384);
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited early (code ${code}, signal ${signal})\n${stderr}`));
    });
  });
  return ready.then((url) => ({
    name,
    url,
    pid: child.pid,
    /** What it printed so far (the last few kB once it has printed more than 64 kB). */
    stdout: () => stdout,
    stderr: () => stderr,
    /** SIGTERM, then wait for a clean exit (the server finishes in-flight requests and exits 0). */
    async stop(timeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  }));
}

/** Reads VmRSS / VmHWM (kB) of a process from /proc; null when it is gone. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /VmRSS:\s+(\d+) kB/.exec(status);
    const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
    return { rssKb: rss ? Number(rss[1]) : null, hwmKb: hwm ? Number(hwm[1]) : null };
  } catch {
    return null;
  }
}

/** CPU time (user + system, ms) a process has used so far; null when it is gone. */
export function cpuTimeOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) of a process tree that reaps its children, such as a PostgreSQL postmaster and its
 * backends: the process's own time, the time of the children it has waited for (cutime, cstime) and
 * the time of the children still running. Null when the process is gone.
 */
export function treeCpuTimeOf(pid) {
  const fieldsOf = (p) => {
    const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  try {
    const own = fieldsOf(pid);
    // Fields 14-17 of /proc/<pid>/stat: utime, stime, cutime, cstime (clock ticks, 100 per second).
    let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || entry === String(pid)) continue;
      try {
        const fields = fieldsOf(entry);
        if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // gone meanwhile: its time is in the parent's cutime/cstime once reaped
      }
    }
    return (ticks * 1000) / 100;
  } catch {
    return null;
  }
}

/** Polls VmRSS every `intervalMs` until stopped; returns the peak and the samples taken. */
export function sampleRss(pid, intervalMs = 100) {
  const samples = [];
  const started = Date.now();
  const take = () => {
    const memory = memoryOf(pid);
    if (memory?.rssKb != null) samples.push({ t: Date.now() - started, rssKb: memory.rssKb });
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      const peakKb = samples.reduce((max, s) => Math.max(max, s.rssKb), 0);
      return { peakKb, samples };
    },
  };
}

/**
 * The machine's CPU time counters from /proc/stat (clock ticks, all CPUs): `steal` is time the
 * hypervisor gave this virtual machine's CPUs to someone else; null off Linux.
 */
export function machineCpuTicks() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
    return { total: user + nice + system + idle + iowait + irq + softirq + steal, steal };
  } catch {
    return null;
  }
}

/** The share of the machine's CPU time stolen by the hypervisor between two machineCpuTicks(). */
export function stealShare(before, after) {
  if (!before || !after || after.total <= before.total) return null;
  return (after.steal - before.steal) / (after.total - before.total);
}
