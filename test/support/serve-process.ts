import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** A `punchclock serve` child process (the built CLI), listening. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Resolves with the exit code and signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

/** Starts `punchclock serve` with `env` (PORT=0 unless given) and resolves once it listens. */
export function serveProcess(env: Record<string, string>): Promise<ServeProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ child, url: match[1]!, exited, output: () => output });
      }
    }, 25);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}
