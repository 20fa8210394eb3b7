import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * A throw-away project that uses the client package as a consumer does: the package built
 * (client/tsconfig.json) and linked as node_modules/@punchclock/client, and `file` holding `code`,
 * set up to compile into out/ (compileConsumer). Returns its folder (the caller removes it).
 */
export async function consumerProject(prefix: string, file: string, code: string): Promise<string> {
  await run(process.execPath, [TSC, '-p', join(ROOT, 'client', 'tsconfig.json')], { cwd: ROOT });
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'node_modules', '@punchclock'), { recursive: true });
  symlinkSync(join(ROOT, 'client'), join(dir, 'node_modules', '@punchclock', 'client'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        outDir: 'out',
      },
      files: [file],
    }),
  );
  writeFileSync(join(dir, file), code);
  return dir;
}

/** tsc on a consumerProject; fails with tsc's output. */
export async function compileConsumer(dir: string): Promise<void> {
  await run(process.execPath, [TSC, '-p', dir], { cwd: dir });
}
