import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

/**
 * `npm run demo` on a fresh data directory, as a newcomer runs it: the `curl` line it prints answers at
 * once and costs what the demo catalog says. The demo model costs $0.15 per million input and $0.60 per
 * million output tokens, and the demo provider reports 12 input and 7 output tokens:
 * 12 × $0.15/M = $0.0000018 and 7 × $0.60/M = $0.0000042, $0.000006 a request.
 */
describe('npm run demo', function () {
  this.timeout(90_000);
  let dataDir: string;
  let demo: ChildProcess | undefined;
  let output = '';
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-demo-test-'));
  });
  after(() => {
    demo?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const printed = async (pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(output);
      if (match) return match;
      if (Date.now() > deadline || demo?.exitCode !== null) throw new Error(`not printed: ${pattern}\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('prints a curl line that answers 200 at once, and the cost of each request', async () => {
    demo = spawn(process.execPath, ['--import', 'tsx', 'ops/demo/demo.ts'], {
      env: { PATH: process.env.PATH!, DEMO_DATA_DIR: dataDir, DATABASE_URL: 'postgres://ignored.invalid/x' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    demo.stdout!.on('data', (chunk) => (output += chunk));
    demo.stderr!.on('data', (chunk) => (output += chunk));

    await printed(/Ctrl-C stops the demo/);
    // the demo's own request
    expect(output).to.contain('cost     $0.000006').and.to.contain('balance  $9.999994');

    const curl = (await printed(/^ {2}(curl -s .+)$/m))[1]!;
    const { stdout } = await promisify(execFile)('bash', ['-c', `${curl} -w '\\n%{http_code}'`]);
    const [body, status] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
    expect(status, body).to.equal('200');
    const completion = JSON.parse(body) as { object: string; model: string; choices: Array<{ message: { content: string } }> };
    expect(completion).to.include({ object: 'chat.completion', model: 'demo-openai/gpt-4o-mini' });
    expect(completion.choices[0]!.message.content).to.be.a('string').and.not.equal('');

    // the curl request's cost, as the demo reports it: $10.00 − 2 × $0.000006
    await printed(/spent \$0\.000006; balance \$9\.999988/);

    demo.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => demo!.once('exit', resolve));
    expect(code).to.equal(0);
  });
});
