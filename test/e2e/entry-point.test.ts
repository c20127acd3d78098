import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '../../src/db/database.js';
import { freePort } from '../../ops/free-port.js';
import { AdminClient } from '../support/admin-client.js';
import { eventually } from '../support/eventually.js';

/**
 * The real entry point (`src/main.ts`, what `npm start` runs after building) as a child process with no
 * DATABASE_URL: embedded mode on PGlite in a temporary DATA_DIR, no other service needed.
 */
interface RunningGateway {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

function spawnGateway(env: Record<string, string>): RunningGateway {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH!, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url: `http://127.0.0.1:${env.PORT}`, output: () => output, exited };
}

async function waitForHealth(gateway: RunningGateway): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (gateway.child.exitCode !== null) throw new Error(`gateway exited: ${gateway.output()}`);
    try {
      if ((await fetch(`${gateway.url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gateway did not become healthy: ${gateway.output()}`);
}

async function stopGateway(gateway: RunningGateway): Promise<number | null> {
  gateway.child.kill('SIGTERM');
  return gateway.exited;
}

describe('entry point (embedded mode, child process)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let catalogFile: string;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-entry-'));
    catalogFile = join(dataDir, 'catalog.yaml');
    copyFileSync('test/support/catalog.test.yaml', catalogFile);
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves /healthz and /v1/models with no other service, prints the admin token once, stops on SIGTERM', async () => {
    const env = { PORT: String(await freePort()), DATA_DIR: dataDir, CATALOG_FILE: catalogFile };
    const first = spawnGateway(env);
    await waitForHealth(first);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const { secret } = await new AdminClient(first.url, token).organizationWithKey();
    const models = (await (await fetch(`${first.url}/v1/models`, { headers: { 'x-api-key': secret } })).json()) as { data: unknown[] };
    expect(models.data, 'every model of the test catalog').to.have.length(15);
    expect((await fetch(`${first.url}/readyz`)).status).to.equal(200);
    expect(first.output()).to.contain(`admin token (shown once`).and.to.contain(token);
    expect(await stopGateway(first)).to.equal(0);

    const second = spawnGateway({ ...env, PORT: String(await freePort()) });
    await waitForHealth(second);
    expect(second.output(), 'the token is printed only on the start that made it').not.to.contain(token);
    expect(await stopGateway(second)).to.equal(0);
  });

  it('refuses to open a data directory that another running process holds', async () => {
    const holder = await openPglite({ dataDir });
    try {
      const second = spawnGateway({ PORT: String(await freePort()), DATA_DIR: dataDir, CATALOG_FILE: catalogFile });
      expect(await second.exited).to.equal(1);
      expect(second.output()).to.contain(`data directory ${dataDir} is in use by process ${process.pid}`);
    } finally {
      await holder.close();
    }
  });

  it('reloads the catalog on SIGHUP and keeps the old one when the new file is bad', async () => {
    const gateway = spawnGateway({ PORT: String(await freePort()), DATA_DIR: dataDir, CATALOG_FILE: catalogFile });
    try {
      await waitForHealth(gateway);
      const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
      const { secret } = await new AdminClient(gateway.url, token).organizationWithKey();
      const ids = async () =>
        ((await (await fetch(`${gateway.url}/v1/models`, { headers: { 'x-api-key': secret } })).json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
      expect(await ids()).not.to.include('local/second');
      writeFileSync(catalogFile, `${readFileSync(catalogFile, 'utf8')}  - id: local/second\n    category: text\n    pricing: { input_per_mtok: "1", output_per_mtok: "2" }\n`);
      gateway.child.kill('SIGHUP');
      await eventually(async () => expect(await ids()).to.include('local/second'));
      writeFileSync(catalogFile, 'providers: {}\nmodels: [{ id: nowhere/x }]\n');
      gateway.child.kill('SIGHUP');
      await eventually(async () => expect(gateway.output()).to.contain('catalog reload failed'));
      expect(await ids()).to.include('local/second');
    } finally {
      copyFileSync('test/support/catalog.test.yaml', catalogFile);
      await stopGateway(gateway);
    }
  });

  it('stops at start with one line naming a bad variable', async () => {
    const gateway = spawnGateway({ PORT: 'eighty', DATA_DIR: dataDir, CATALOG_FILE: catalogFile });
    expect(await gateway.exited).to.equal(1);
    expect(gateway.output().trim()).to.equal('invalid configuration: PORT="eighty": Invalid input: expected number, received NaN');
  });

  it('stops at start with one line naming a bad catalog entry', async () => {
    const bad = join(dataDir, 'bad.yaml');
    writeFileSync(bad, 'providers:\n  a: { kind: openai, base_url: "http://x/v1" }\nmodels:\n  - { id: a/m, category: text, pricing: { input_per_mtok: "1" } }\n');
    const gateway = spawnGateway({ PORT: String(await freePort()), DATA_DIR: dataDir, CATALOG_FILE: bad });
    expect(await gateway.exited).to.equal(1);
    expect(gateway.output().trim()).to.equal(`catalog ${bad}: models[0] (a/m): a text model needs pricing.input_per_mtok and output_per_mtok`);
  });
});

