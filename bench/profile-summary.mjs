#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time, and self time by
// module (our files under dist/, each package under node_modules/, node internals, GC, idle).
//
//   node bench/profile-summary.mjs <file.cpuprofile> [--top=30] [--filter=substring]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [--top=30]');
  process.exit(2);
}
const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

function moduleOf(url) {
  if (!url) return '(native/vm)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `npm:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return url;
  const dist = url.indexOf('/dist/');
  if (dist !== -1) return `app:${url.slice(dist + 6)}`;
  return url.replace(/^file:\/\//, '');
}

const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const functions = new Map();
const modules = new Map();
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  const frame = node.callFrame;
  const name = frame.functionName || '(anonymous)';
  const where = frame.url ? `${moduleOf(frame.url)}:${frame.lineNumber + 1}` : '';
  const key = `${name} ${where}`.trim();
  functions.set(key, (functions.get(key) ?? 0) + us);
  const mod = ['(idle)', '(garbage collector)', '(program)'].includes(name) ? name : moduleOf(frame.url);
  modules.set(mod, (modules.get(mod) ?? 0) + us);
}
const busy = total - (modules.get('(idle)') ?? 0);
const pct = (us) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
const msf = (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`;

console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (percentages of busy time)`,
);
console.log('\nself time by module:');
for (const [mod, us] of [...modules]
  .filter(([m]) => m !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, 25))
  console.log(`${msf(us)} ${pct(us)}  ${mod}`);
console.log(`\ntop ${top} functions by self time:`);
for (const [key, us] of [...functions]
  .filter(([k]) => !k.startsWith('(idle)'))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`${msf(us)} ${pct(us)}  ${key}`);

// Inclusive time of our own functions (dist/), to see which use case or plugin costs what.
const inclusive = new Map();
function walk(id, stack) {
  const node = byId.get(id);
  const frame = node.callFrame;
  const own =
    frame.url && frame.url.includes('/dist/')
      ? `${frame.functionName || '(anonymous)'} ${moduleOf(frame.url)}:${frame.lineNumber + 1}`
      : null;
  const pushed = own && !stack.has(own);
  if (pushed) stack.add(own);
  const self = selfUs.get(id) ?? 0;
  for (const key of stack) inclusive.set(key, (inclusive.get(key) ?? 0) + self);
  for (const child of node.children ?? []) walk(child, stack);
  if (pushed) stack.delete(own);
}
walk(profile.nodes[0].id, new Set());
console.log(
  `\ntop ${top} app functions by inclusive time (synchronous part only: awaited work is not attributed):`,
);
for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${msf(us)} ${pct(us)}  ${key}`);
