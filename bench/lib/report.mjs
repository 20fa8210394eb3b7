// Machine description, result table, JSON and Markdown files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { formatRatioRange } from './ratios.mjs';

function git(args, cwd) {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export async function describeMachine({ root, postgresUrl }) {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const match = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) cpuModel = match[1].trim();
  } catch {
    // not Linux: keep os.cpus()'s model
  }
  let postgres = null;
  if (postgresUrl) {
    const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      const { rows } = await client.query(
        "select current_setting('server_version') as version, current_setting('shared_buffers') as shared_buffers, current_setting('synchronous_commit') as synchronous_commit, current_setting('max_connections') as max_connections",
      );
      postgres = rows[0];
    } catch (error) {
      postgres = { error: String(error.message ?? error) };
    } finally {
      await client.end().catch(() => {});
    }
  }
  const status = git(['status', '--porcelain'], root);
  return {
    cpuModel,
    cores: os.cpus().length,
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres,
    git: {
      commit: git(['rev-parse', 'HEAD'], root),
      uncommittedChanges: status === null ? null : status.length > 0,
    },
    loadAverageAtStart: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

const fmt = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '—' : n.toFixed(digits));
const mb = (kb) => (kb ? (kb / 1024).toFixed(0) : '—');
const ms = (n) => (n === null || n === undefined ? '—' : n < 10 ? n.toFixed(2) : n.toFixed(1));

/** One row per scenario and database. */
/** A share as a whole percentage; runs recorded before steal was measured have none. */
function pct(share) {
  return share === null || share === undefined ? '—' : `${(share * 100).toFixed(0)}%`;
}

/**
 * How far the worst of a side's max-load rounds fell below its best: on a machine whose speed drifts
 * (docs/performance.md, round 8) one run's ratio can hang on a single fast or slow round.
 */
function worstOfBest(rounds) {
  if (!rounds || rounds.length < 2) return '—';
  return `${((100 * Math.min(...rounds)) / Math.max(...rounds)).toFixed(0)}%`;
}

export function tableRows(results) {
  const rows = [];
  for (const db of results.databases) {
    for (const s of db.scenarios) {
      const half = s.api.half;
      rows.push([
        db.name,
        s.label,
        fmt(s.floor?.rps),
        fmt(s.api.max.rps),
        // Results written before the median of pairs (no `pairs`) show the ratio they were judged on.
        s.pairs
          ? formatRatioRange({ median: s.ratio, min: s.ratioMin, max: s.ratioMax })
          : `${formatRatioRange({ median: s.ratio })}${s.ratio === null ? '' : ' (best rounds)'}`,
        `≥${(s.ratioTarget * 100).toFixed(0)}% ${s.ratioPass ? 'PASS' : 'FAIL'}`,
        `${ms(s.api.max.rawLatency.p50)} / ${fmt(s.api.max.latency.p99)}`,
        half
          ? `${fmt(half.rps)}: ${ms(half.latency.p50)} / ${ms(half.latency.p99)} ${s.p99Pass ? 'PASS' : 'FAIL'}`
          : '—',
        `${mb(s.floor?.peakRssKb)} / ${mb(s.api.max.peakRssKb)}`,
        `${pct(s.floor?.stealShare)} / ${pct(s.api.max.stealShare)}`,
        `${worstOfBest(s.rounds?.floorRps)} / ${worstOfBest(s.rounds?.apiRps)}`,
        String(s.non2xx),
      ]);
    }
  }
  return rows;
}

export const TABLE_HEADER = [
  'db',
  'scenario',
  'floor req/s',
  'API req/s',
  'API/floor: median of pairs (min–max)',
  'ratio target',
  'API p50 / p99 ms (max load)',
  'half rate: req/s: p50 / p99 ms (p99<25)',
  'peak RSS MB floor / API',
  'CPU stolen floor / API',
  'worst round of best floor / API',
  'non-2xx',
];

export function textTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function markdownTable(header, rows) {
  const esc = (c) => String(c).replace(/\|/g, '\\|');
  return [
    `| ${header.map(esc).join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

export function targetLines(results) {
  return results.targets.map(
    (t) => `${t.pass === null ? 'n/a ' : t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.detail}`,
  );
}

/** How the max-load rounds ran and which counted, for the results' settings (old files included). */
function runsPerScenario(settings) {
  if (settings.ratioMethod === 'median-of-pairs')
    return `Runs per scenario: a warm-up of ${settings.warmupS} s for each server, then ${settings.pairs} pairs of max-load rounds of ${settings.durationS} s, floor and API back to back, the floor first in odd pairs and the API first in even ones${settings.retry ? ' (up to three more pairs while CPU stolen by the hypervisor disturbed half of them or more)' : ''}. Each pair gives a ratio, API over floor; the scenario's ratio is the median of its pairs' ratios, shown with their min and max, and its target is judged on the median. The req/s, latency, memory and steal shown at max load are those of the median pair's rounds.`;
  return `Runs per scenario: a warm-up of ${settings.warmupS} s for each server, then ${settings.rounds} round(s) of floor and API back to back at max load, ${settings.durationS} s each ${settings.retry ? ' (one more round when the ratio is just below its target)' : ''}; the best round of each side counts.`;
}

/** " Pairs (API/floor, F: floor first, A: API first): 55% F, 57% A, …." — nothing for older results. */
function pairList(s) {
  if (!s.pairs?.length) return '';
  const ratios = s.pairs.map(
    (p) => `${p.ratio === null ? '—' : `${(p.ratio * 100).toFixed(0)}%`} ${p.apiFirst ? 'A' : 'F'}`,
  );
  return ` Pairs (API/floor; F: floor first, A: API first): ${ratios.join(', ')}; median pair ${s.medianPair}.`;
}

export function markdownReport(results) {
  const m = results.machine;
  const lines = [
    `# Punchclock benchmark — ${results.startedAt}${results.quick ? ' (quick mode)' : ''}`,
    '',
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGb} GB RAM, ${m.os}; Node ${m.node}; PostgreSQL ${m.postgres?.version ?? 'n/a'} (shared_buffers ${m.postgres?.shared_buffers ?? '?'}, synchronous_commit ${m.postgres?.synchronous_commit ?? '?'}); git ${m.git.commit ?? '?'}${m.git.uncommittedChanges ? ' + uncommitted changes' : ''}; load average at start ${m.loadAverageAtStart.join(' ')}.`,
    '',
    `${results.apiRoot ? `API built from ${results.apiRoot} (not this checkout). ` : ''}Server: \`node dist/cli/main.js serve\`, LOG_LEVEL=${results.settings.logLevel}, RATE_LIMIT_PER_MINUTE and TOKEN_RATE_LIMIT_PER_MINUTE raised to ${results.settings.rateLimit.toLocaleString('en-US')} (defaults 300 and 60) so that the limiter never refuses; the limiter still counts every request.`,
    `${runsPerScenario(results.settings)} Then ${results.settings.halfDurationS} s of the API, and of the floor, at 50% of the API's best rate, each after ${results.settings.halfWarmupS} s at that rate: requests evenly spaced (bench/lib/paced.mjs), latency counted from each request's due time. ${results.settings.connections} connections. Sizes: ${JSON.stringify(results.settings.sizes)}.`,
    '',
    markdownTable(TABLE_HEADER, tableRows(results)),
    '',
    '## Targets',
    '',
    ...targetLines(results).map((l) => `- ${l}`),
    '',
  ];
  for (const db of results.databases) {
    lines.push(`## ${db.name}: details`, '');
    for (const s of db.scenarios) {
      lines.push(
        `- **${s.label}**: ${s.description} Data: ${s.data}.${pairList(s)} Status counts — floor: ${JSON.stringify(s.floor?.statusCounts ?? {})}; API max: ${JSON.stringify(s.api.max.statusCounts)}; API half: ${JSON.stringify(s.api.half?.statusCounts ?? {})}.${s.problems.length ? ` Unexpected answers: ${JSON.stringify(s.problems)}` : ''}`,
      );
    }
    if (db.steady) {
      const st = db.steady;
      lines.push(
        `- **steady run** (${st.durationS} s${results.quick ? ', shortened in quick mode' : ''}, ${st.rate} req/s mixed: clock events, time-entry pages, employee pages, /me): RSS ${mb(st.startKb)} MB → ${mb(st.endKb)} MB (${(st.growth * 100).toFixed(1)}%), peak ${mb(st.peakKb)} MB; status counts ${JSON.stringify(st.statusCounts)}.`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

export function writeResults(dir, results) {
  mkdirSync(dir, { recursive: true });
  const stamp = results.startedAt.replace(/[:.]/g, '-');
  const name = `${stamp}${results.quick ? '-quick' : ''}`;
  // Per-run RSS samples (every 100 ms) stay out of the file: peaks are kept, and the steady run keeps
  // one sample per second.
  const json = JSON.stringify(results, (key, value) => (key === 'rssSamples' ? undefined : value), 2);
  const md = markdownReport(results);
  writeFileSync(join(dir, `${name}.json`), json);
  writeFileSync(join(dir, `${name}.md`), md);
  writeFileSync(join(dir, 'latest.json'), json);
  writeFileSync(join(dir, 'latest.md'), md);
  return { json: join(dir, `${name}.json`), md: join(dir, `${name}.md`) };
}
