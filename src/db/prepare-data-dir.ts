import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A new embedded data directory is created and migrated in a short-lived child process (this file, run as
 * a script), so that the gateway's own process opens it as it opens an existing one. Created in the
 * gateway's process, PGlite's `initdb` and the first migrations left 35–110 MB more resident than a restart
 * for as long as the process ran (WebAssembly memory never shrinks, and malloc kept what they had touched).
 * Does nothing for a directory that exists. The child is given the same Node flags (a TypeScript loader in
 * development) and reports a failure by its exit code, with its error on stderr.
 */
export async function prepareDataDirApart(pgliteDir: string): Promise<void> {
  if (existsSync(join(pgliteDir, 'PG_VERSION'))) return;
  const self = fileURLToPath(import.meta.url);
  const script = join(self, '..', `prepare-data-dir-main${extname(self)}`);
  await new Promise<void>((resolve, reject) => {
    const child = fork(script, [pgliteDir], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`creating the data directory ${pgliteDir} failed (exit ${code}): ${stderr.trim()}`))));
  });
}
