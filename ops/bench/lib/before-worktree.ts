import { spawnSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * BENCH_BEFORE=<git ref>: the gateway of an earlier commit, built in a worktree of its own under .bench/,
 * so that one run measures it beside today's code against the same proxy, fake provider and stores (the
 * "before" figures of a change, in the same run rather than from a log of another day).
 *
 * The worktree shares this checkout's node_modules (a symlink): a ref whose dependencies differ from
 * today's lockfile fails at its build, and says so.
 */
export interface BeforeBuild {
  /** The commit, abbreviated: how the report names the target. */
  readonly commit: string;
  /** The worktree's directory: the gateway runs from there (`dist/src/main.js`). */
  readonly root: string;
}

function git(args: string[]): string {
  const run = spawnSync('git', args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr.trim()}`);
  return run.stdout.trim();
}

export function buildBefore(ref: string): BeforeBuild {
  const commit = git(['rev-parse', '--short=10', `${ref}^{commit}`]);
  const root = resolve('.bench', `before-${commit}`);
  if (!existsSync(root)) git(['worktree', 'add', '--detach', root, commit]);
  if (!existsSync(resolve(root, 'node_modules'))) symlinkSync(resolve('node_modules'), resolve(root, 'node_modules'), 'dir');
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`npm run build of ${commit} (in ${root}) failed (exit ${built.status})`);
  return { commit, root };
}
