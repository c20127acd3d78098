import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { testDatabaseUrl } from './databases.js';

const execute = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run <script> -- …` as an operator runs it; by default against the run's database. */
export async function npmRun(script: string, args: readonly string[], env: Record<string, string> = { DATABASE_URL: testDatabaseUrl() }): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execute('npm', ['run', '--silent', script, '--', ...args], { env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

export const npmRunAudit = (args: readonly string[], env?: Record<string, string>) => npmRun('audit', args, env);
