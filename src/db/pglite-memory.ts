import { PGlite } from '@electric-sql/pglite';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * PGlite runs Postgres as WebAssembly inside the gateway's process, so Postgres's memory is the gateway's
 * resident memory. Two things made an idle embedded gateway hold 600–900 MB (docs/performance-log.md):
 *
 * - Postgres's default `shared_buffers` (128 MB) lives in the WebAssembly memory, which never shrinks. It is
 *   sized for a server sharing a machine's RAM among many clients; here one process reads a small working
 *   set (account tails, access streams, read models) whose files the OS caches anyway. 16 MB measured the
 *   same throughput in the benchmark and about 100 MB less resident memory.
 * - The first start of a data directory runs `initdb` in a second WebAssembly instance. A new data directory
 *   is therefore created in a child process (prepare-data-dir.ts); an in-memory database (tests) still runs
 *   it here, and its memory (about 200 MB) is garbage as soon as PGlite is up, but V8 only frees it in a
 *   full collection, which a process with a small JavaScript heap may not run for hours. Two full
 *   collections after opening return it (`releaseInitdbMemory`).
 */
export const PGLITE_SHARED_BUFFERS = '16MB';

/**
 * Compiles PGlite's WebAssembly with the optimizing compiler only (V8's `--no-liftoff`), before the first
 * `PGlite.create` compiles it. By default V8 compiles every function at once with its baseline compiler and
 * later the hot ones again, optimized, in background threads that compete with the requests for two cores.
 * Measured (docs/performance-log.md, "Memory of the embedded gateway"): Postgres's statements 10–15 % cheaper
 * once warm and 30–40 % cheaper in the first seconds, an idle gateway after a first start 50–65 MB smaller
 * and the peak of a start 60–75 MB lower; after a restart the idle size is the same. The price: the first
 * open in a process takes about 2 s longer (1.4 s more CPU); V8 caches the compiled module for later opens. WebAssembly
 * compiled later in the process (undici's HTTP parser) is optimized up front too.
 */
export function compileWasmOptimized(): void {
  setFlagsFromString('--no-liftoff');
}

export function pgliteStartParams(): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
}

/**
 * Two full collections, each after the current call stacks have unwound: the first frees the initdb instance
 * once `PGlite.create` no longer holds it, the second what only finalizers of the first released (measured:
 * one collection in the same turn frees nothing, one after a turn frees about half).
 */
export async function releaseInitdbMemory(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (!gc) return;
  for (let round = 0; round < 2; round++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
}
