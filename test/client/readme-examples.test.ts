// The README's "Calling the API" examples, run as a reader would run them, against a real server on
// every test database: the curl block with bash, the TypeScript block compiled with tsc against the
// built client package (imported as `@punchclock/client`) and run with node. Each must succeed and
// print what the README shows after it (ids, dates and instants, which differ on every run, are
// compared by shape).
//
// The section is read from the root README.md between `<!-- examples:start -->` and
// `<!-- examples:end -->`.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPunchclockClient } from '../../client/src/index.js';
import { compileConsumer, consumerProject, ROOT, run } from '../support/client-package.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  startTestServer,
  type TestServer,
} from '../support/server.js';

const START = '<!-- examples:start -->';
const END = '<!-- examples:end -->';
const ZONE = 'Europe/Berlin';

interface Block {
  lang: string;
  code: string;
}

function examplesSection(): { source: string; text: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  const text = start >= 0 && end > start ? readme.slice(start + START.length, end) : '';
  if (text.trim() === '') throw new Error(`README.md has no examples between ${START} and ${END}`);
  return { source: 'README.md', text };
}

function fencedBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm)].map((m) => ({
    lang: m[1]!,
    code: m[2]!,
  }));
}

/** The code block of `lang` and the `text` block right after it: what the README says it prints. */
function example(blocks: Block[], lang: string): { code: string; prints: string } {
  const index = blocks.findIndex((b) => b.lang === lang);
  if (index < 0) throw new Error(`the examples have no \`\`\`${lang} block`);
  if (blocks.filter((b) => b.lang === lang).length > 1)
    throw new Error(`the examples have several \`\`\`${lang} blocks`);
  const output = blocks[index + 1];
  if (output?.lang !== 'text')
    throw new Error(`the \`\`\`${lang} example is not followed by a \`\`\`text block of its output`);
  return { code: blocks[index]!.code, prints: output.code };
}

/** Values that differ on every run are compared by shape. */
function normalise(text: string): string {
  return text
    .trim()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, '<instant>')
    .replace(/\d{4}-\d{2}-\d{2}/g, '<date>')
    .replace(/"time":"\d{2}:\d{2}:\d{2}"/g, '"time":"<time>"');
}

/** `date` (YYYY-MM-DD) at `time` on the wall clock of ZONE, as RFC 3339 with that day's offset. */
function wallClock(date: string, time: string): string {
  const noon = new Date(`${date}T12:00:00Z`);
  const name = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' })
    .formatToParts(noon)
    .find((p) => p.type === 'timeZoneName')!.value; // "GMT+01:00"
  const offset = name === 'GMT' ? '+00:00' : name.slice(3);
  return `${date}T${time}${offset}`;
}

function yesterdayIn(zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(Date.now() - 24 * 3600 * 1000));
  return parts; // en-CA formats as YYYY-MM-DD
}

const section = examplesSection();
const blocks = fencedBlocks(section.text);

describe(`README examples (from ${section.source})`, () => {
  it('the setup block exports the variables the examples read', () => {
    const setup = blocks.find((b) => b.lang === 'sh' && /^export BASE_URL=/m.test(b.code));
    expect(setup, 'a ```sh block with `export BASE_URL=…`').toBeDefined();
    const names = [...setup!.code.matchAll(/^export (\w+)=/gm)].map((m) => m[1]);
    expect(names).toEqual(['BASE_URL', 'CLIENT_ID', 'CLIENT_SECRET', 'EXTERNAL_ID']);
    const used = new Set([...section.text.matchAll(/\$(?:\{)?([A-Z_]+)\b/g)].map((m) => m[1]));
    used.delete('TOKEN');
    for (const name of used) expect(names, `$${name} is used but not set up`).toContain(name);
  });

  let workDir: string;
  beforeAll(async () => {
    // The TypeScript example imports the package as a consumer does: build it, link it, compile.
    workDir = await consumerProject('punchclock-readme-', 'example.ts', example(blocks, 'ts').code);
    try {
      await compileConsumer(workDir);
    } catch (error) {
      const { stdout } = error as { stdout?: string };
      throw new Error(`the README's TypeScript example does not compile:\n${stdout ?? String(error)}`);
    }
  }, 120_000);
  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  describe.each(testDialects().map((d) => [d.name, d] as const))('on %s', (_name, dialect) => {
    let server: TestServer;
    let fixture: CompanyFixture;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      server = await startTestServer(dialect);
      fixture = await createCompanyFixture(server.ctx, {
        timeZone: ZONE,
        // The timesheets example needs attendance.reports (the demo key has every scope).
        scopes: 'attendance.record,attendance.read,employees.read,attendance.reports',
      });
      // What the README's output shows: the employee under badge BADGE-1001, with yesterday's shift.
      const client = createPunchclockClient({
        baseUrl: server.listenUrl,
        clientId: fixture.key.clientId,
        clientSecret: fixture.key.secret,
      });
      await client.setExternalId(fixture.employees[0]!.id, 'BADGE-1001');
      const day = yesterdayIn(ZONE);
      await client.recordShift({
        employee: { externalId: 'BADGE-1001' },
        clockIn: wallClock(day, '08:00:00'),
        clockOut: wallClock(day, '16:30:00'),
        breakMinutes: 30,
      });
      env = {
        ...process.env,
        BASE_URL: server.listenUrl,
        CLIENT_ID: fixture.key.clientId,
        CLIENT_SECRET: fixture.key.secret,
        EXTERNAL_ID: 'BADGE-1001',
      };
    });
    afterAll(async () => server?.stop());

    it('the curl example runs with bash and prints what the README shows', async () => {
      const { code, prints } = example(blocks, 'bash');
      const { stdout, stderr } = await run('bash', ['-c', `set -euo pipefail\n${code}`], {
        env,
        cwd: tmpdir(),
      });
      expect(stderr).toBe('');
      expect(normalise(stdout)).toBe(normalise(prints));
      expect(stdout).not.toContain(fixture.key.secret);
    });

    it('the TypeScript example runs against the built client and prints what the README shows', async () => {
      const { prints } = example(blocks, 'ts');
      const { stdout, stderr } = await run(process.execPath, [join(workDir, 'out', 'example.js')], {
        env,
        cwd: workDir,
      });
      expect(stderr).toBe('');
      expect(normalise(stdout)).toBe(normalise(prints));
    });
  });
});
