import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * The layering rules of .dependency-cruiser.cjs (docs/architecture.md) are only worth their names if
 * each one fails when broken. This plants one violation of every rule in a small tree laid out like
 * src/ and runs dependency-cruiser on it with the project's own configuration; a clean tree passes.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const run = promisify(execFile);

/** A tree that keeps every rule: the layers, each importing only downwards. */
const CLEAN: Record<string, string> = {
  'src/domain/rule.ts': 'export const rule = 1;\n',
  'src/shared/helper.ts': "import { rule } from '../domain/rule.js';\nexport const helper = rule;\n",
  'src/platform/db.ts': "import { helper } from '../shared/helper.js';\nexport const db = helper;\n",
  'src/modules/context.ts': "import { db } from '../platform/db.js';\nexport const ctx = db;\n",
  'src/modules/x/queries.ts': "import { ctx } from '../context.js';\nexport const rows = ctx;\n",
  'src/modules/x/schemas.ts': "import { rule } from '../../domain/rule.js';\nexport const Schema = rule;\n",
  'src/modules/x/service.ts':
    "import { rows } from './queries.js';\nimport { Schema } from './schemas.js';\nexport const operation = rows + Schema;\n",
  'src/http/schemas/common.ts': 'export const Guid = 1;\n',
  'src/http/plugins/guard.ts':
    "import { operation } from '../../modules/x/service.js';\nexport const guard = operation;\n",
  'src/modules/x/public.routes.ts':
    "import { guard } from '../../http/plugins/guard.js';\nimport { operation } from './service.js';\nexport const routes = guard + operation;\n",
  'src/modules/y/service.ts':
    "import { Guid } from '../../http/schemas/common.js';\nexport const other = Guid;\n",
  'src/modules/y/public.routes.ts': "import { other } from './service.js';\nexport const yRoutes = other;\n",
  'src/app/app.ts':
    "import { routes } from '../modules/x/public.routes.js';\nimport { yRoutes } from '../modules/y/public.routes.js';\nexport const app = routes + yRoutes;\n",
  'src/cli/main.ts': "import { operation } from '../modules/x/service.js';\nexport const cli = operation;\n",
};

/** One planted violation per rule: the file that breaks it (added to the clean tree), and its imports. */
const PLANTED: { rule: string; file: string; source: string }[] = [
  {
    rule: 'no-cycles',
    file: 'src/shared/cycle-a.ts',
    source: "import { b } from './cycle-b.js';\nexport const a = b;\n",
  },
  {
    rule: 'foundation-stays-at-the-bottom',
    file: 'src/platform/upward.ts',
    source: "import { operation } from '../modules/x/service.js';\nexport const up = operation;\n",
  },
  {
    rule: 'domain-and-shared-are-pure',
    file: 'src/shared/with-database.ts',
    source: "import { db } from '../platform/db.js';\nexport const impure = db;\n",
  },
  {
    rule: 'domain-below-shared',
    file: 'src/domain/uses-shared.ts',
    source: "import { helper } from '../shared/helper.js';\nexport const above = helper;\n",
  },
  {
    rule: 'queries-only-reach-down',
    file: 'src/modules/y/queries.ts',
    source: "import { other } from './service.js';\nexport const calls = other;\n",
  },
  {
    rule: 'services-know-no-http',
    file: 'src/modules/y/uses-routes.ts',
    source: "import { routes } from '../x/public.routes.js';\nexport const door = routes;\n",
  },
  {
    rule: 'services-use-only-http-schemas',
    file: 'src/modules/y/uses-plugin.ts',
    source: "import { guard } from '../../http/plugins/guard.js';\nexport const plugin = guard;\n",
  },
  {
    rule: 'http-below-routes',
    file: 'src/http/plugins/uses-routes.ts',
    source: "import { routes } from '../../modules/x/public.routes.js';\nexport const up = routes;\n",
  },
  {
    rule: 'routes-are-doors',
    file: 'src/modules/y/admin.routes.ts',
    source: "import { routes } from '../x/public.routes.js';\nexport const adminRoutes = routes;\n",
  },
  {
    rule: 'schemas-are-leaves',
    file: 'src/modules/y/schemas.ts',
    source: "import { rows } from '../x/queries.js';\nexport const Leaf = rows;\n",
  },
  {
    rule: 'routes-not-from-app-or-cli',
    file: 'src/modules/x/admin.routes.ts',
    source: "import { app } from '../../app/app.js';\nexport const adminRoutes = app;\n",
  },
  {
    rule: 'cli-has-no-sql',
    file: 'src/cli/reads-rows.ts',
    source: "import { rows } from '../modules/x/queries.js';\nexport const sqlInCli = rows;\n",
  },
];
const CYCLE_PARTNER = {
  file: 'src/shared/cycle-b.ts',
  source: "import { a } from './cycle-a.js';\nexport const b = a;\n",
};

const made: string[] = [];

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-lint-rules-'));
  made.push(dir);
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), source);
  }
  return dir;
}

/**
 * Runs dependency-cruiser as `npm run lint` does (its text report, whose exit status fails the lint)
 * and reads the violations it reports: `error RULE: FROM → TO`.
 */
async function cruise(dir: string): Promise<{ exitCode: number; violations: string[] }> {
  const args = ['src', '--config', '.dependency-cruiser.cjs'];
  let exitCode = 0;
  let stdout: string;
  try {
    ({ stdout } = await run(DEPCRUISE, args, { cwd: dir, maxBuffer: 32 * 1024 * 1024 }));
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    exitCode = failed.code;
    stdout = failed.stdout;
  }
  const violations = [...stdout.matchAll(/^\s+error (\S+): (\S+) →/gm)].map((m) => `${m[1]} ${m[2]}`);
  return { exitCode, violations };
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('the layering rules (.dependency-cruiser.cjs)', () => {
  it('pass a tree that imports only downwards', async () => {
    const result = await cruise(tree(CLEAN));
    expect(result.violations).toEqual([]);
    expect(result.exitCode).toBe(0);
  }, 120_000);

  it('each fail on the violation planted for it', async () => {
    const planted = Object.fromEntries(PLANTED.map((p) => [p.file, p.source]));
    const result = await cruise(tree({ ...CLEAN, ...planted, [CYCLE_PARTNER.file]: CYCLE_PARTNER.source }));
    expect(result.exitCode).not.toBe(0);
    const reported = new Set(result.violations);
    for (const { rule, file } of PLANTED) expect(reported, `${rule} on ${file}`).toContain(`${rule} ${file}`);
    // Every rule of the configuration has its planted violation.
    const config = (await import(join(ROOT, '.dependency-cruiser.cjs'))) as {
      default: { forbidden: { name: string }[] };
    };
    expect(new Set(PLANTED.map((p) => p.rule))).toEqual(new Set(config.default.forbidden.map((r) => r.name)));
  }, 120_000);
});
