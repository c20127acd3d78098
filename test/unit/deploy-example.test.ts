import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configVariables, loadConfig } from '../../src/config.js';

/**
 * The deployment example in ops/deploy cannot be started here (no Docker engine), so this keeps it from
 * rotting: the compose file parses and gives every gateway process only variables the gateway reads, with
 * values its configuration accepts; every secret it substitutes is in env.example; the nginx file proxies
 * to those services without buffering; the Dockerfile copies paths that exist and runs files the build makes.
 */
const DEPLOY = 'ops/deploy';
const GATEWAY_PROCESSES = ['gateway-1', 'gateway-2', 'projections', 'tools'];

type Service = { environment?: Record<string, string>; command?: string[]; image?: string; build?: { target?: string }; profiles?: string[] };

// merge keys (`<<:`), as compose reads them: the gateways add the account link to the shared environment
const compose = parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const exampleEnv = Object.fromEntries(
  readFileSync(join(DEPLOY, 'env.example'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);
const catalog = parse(readFileSync('ops/catalog.example.yaml', 'utf8')) as { providers: Record<string, { api_key_env?: string; timeout_ms?: number }> };
const providerKeys = Object.values(catalog.providers).flatMap((provider) => (provider.api_key_env ? [provider.api_key_env] : []));

/** Compose's interpolation (`${NAME}`, `${NAME:-default}`, `${NAME:?error}`) from the example .env. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_all, name: string, kind: string | undefined, fallback: string | undefined) => {
    const set = exampleEnv[name];
    if (set !== undefined && set !== '') return set;
    if (kind === '?') throw new Error(`${name} is required but empty in env.example`);
    return kind === '-' ? (fallback ?? '') : '';
  });
}

describe('the deployment example (ops/deploy)', () => {
  it('has the stores, two gateways behind a proxy, and the projection worker', () => {
    expect(Object.keys(services)).to.include.members(['eventstore', 'postgres', 'redis', 'gateway-1', 'gateway-2', 'projections', 'proxy', 'tools']);
    expect(services.projections!.command).to.deep.equal(['node', 'dist/projections/cli.js', 'run']);
    expect(services.tools!.profiles, 'tools start only when asked for').to.deep.equal(['tools']);
    expect(services.tools!.build?.target).to.equal('tools');
  });

  for (const name of GATEWAY_PROCESSES) {
    it(`gives ${name} only variables the gateway reads, and a configuration it accepts`, () => {
      const environment = services[name]!.environment!;
      const known = new Set([...configVariables, ...providerKeys]);
      expect(Object.keys(environment).filter((variable) => !known.has(variable)), 'variables nothing reads').to.deep.equal([]);
      const env = Object.fromEntries(Object.entries(environment).map(([variable, value]) => [variable, interpolate(String(value))]));
      const config = loadConfig(env);
      expect(config.DATABASE_URL).to.match(/^postgres:\/\/gateway:.+@postgres:5432\/gateway$/);
      expect(config.EVENTSTORE_URL).to.equal('esdb://eventstore:2113?tls=false');
      expect(config.REDIS_URL).to.equal('redis://redis:6379');
      expect(config.ADMIN_TOKEN).to.equal(exampleEnv.ADMIN_TOKEN);
      expect(config.PROJECTIONS, 'the worker keeps the read models').to.equal('off');
      expect(config.PORT).to.equal(8080);
    });
  }

  it('links the two gateways, each under its own name, with one secret, and leaves the CLIs off the link', () => {
    const link = (name: string) => loadConfig(Object.fromEntries(Object.entries(services[name]!.environment!).map(([variable, value]) => [variable, interpolate(String(value))])));
    const [first, second] = [link('gateway-1'), link('gateway-2')];
    expect([first.ACCOUNT_LINK_PORT, first.ACCOUNT_LINK_HOST, second.ACCOUNT_LINK_PORT, second.ACCOUNT_LINK_HOST]).to.deep.equal([7070, 'gateway-1', 7070, 'gateway-2']);
    expect(first.ACCOUNT_LINK_SECRET).to.equal(exampleEnv.ACCOUNT_LINK_SECRET).and.equal(second.ACCOUNT_LINK_SECRET);
    for (const name of ['projections', 'tools']) expect(link(name).ACCOUNT_LINK_PORT, name).to.equal(undefined);
  });

  it('names in env.example every variable compose.yaml substitutes', () => {
    const text = readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8');
    const substituted = new Set([...text.matchAll(/\$\{([A-Z_]+)/g)].map((match) => match[1]!));
    expect([...substituted].filter((name) => !(name in exampleEnv))).to.deep.equal([]);
    for (const key of providerKeys) expect(exampleEnv, key).to.have.property(key);
  });

  const nginx = readFileSync(join(DEPLOY, 'nginx.conf'), 'utf8');
  const directive = (name: string) => [...nginx.matchAll(new RegExp(`^\\s*${name}\\s+([^;{]+);`, 'gm'))].map((match) => match[1]!.trim());

  it('proxies to the gateway services, streaming, with reads as long as a provider call', () => {
    const upstreams = directive('server').map((server) => server.split(/\s+/)[0]);
    expect(upstreams).to.deep.equal(['gateway-1:8080', 'gateway-2:8080']);
    expect(directive('proxy_buffering')).to.deep.equal(['off']);
    expect(directive('proxy_request_buffering')).to.deep.equal(['off']);
    const longestProviderCall = Math.max(600_000, ...Object.values(catalog.providers).map((provider) => provider.timeout_ms ?? 0));
    for (const timeout of [...directive('proxy_read_timeout'), ...directive('proxy_send_timeout')]) {
      expect(Number(timeout.replace(/s$/, '')) * 1000, timeout).to.be.at.least(longestProviderCall);
    }
    expect(Number(directive('client_max_body_size')[0]!.replace(/m$/, ''))).to.be.at.least(32);
    expect(nginx).to.match(/location = \/metrics \{\s*return 404;/);
    // every brace closes
    expect(nginx.split('{').length).to.equal(nginx.split('}').length);
  });

  const nginxBinary = spawnSync('nginx', ['-v']).error ? undefined : 'nginx';
  (nginxBinary ? it : it.skip)('passes `nginx -t` (skipped where nginx is not installed)', () => {
    const directory = mkdtempSync(join(tmpdir(), 'gw-nginx-'));
    try {
      // the compose service names resolve only on the compose network, and the test's output is a pipe
      const local = nginx.replace(/gateway-[12]:8080/g, '127.0.0.1:8080').replace(/\/dev\/std(out|err)/g, (_all, name: string) => join(directory, `${name}.log`));
      writeFileSync(join(directory, 'nginx.conf'), local);
      execFileSync(nginxBinary!, ['-t', '-q', '-p', directory, '-c', join(directory, 'nginx.conf')], { stdio: 'pipe' });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('builds from paths that exist and runs the files the build makes', () => {
    const dockerfile = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
    for (const [, sources] of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const source of sources!.split(/\s+/)) expect(existsSync(source), `COPY ${source}`).to.equal(true);
    }
    expect(dockerfile).to.match(/RUN npm ci --no-fund/).and.match(/RUN npm run build/).and.match(/--omit=dev/);
    expect(dockerfile).to.match(/^USER node$/m);
    expect(dockerfile.match(/^FROM .+ AS (\w+)$/gm)).to.deep.equal(['FROM ${NODE_IMAGE} AS build', 'FROM build AS tools', 'FROM ${NODE_IMAGE} AS runtime']);
    // tsconfig.build.json compiles src/ and projections/ into dist/ under the same paths
    expect(existsSync('src/main.ts') && existsSync('projections/cli.ts')).to.equal(true);
    expect(dockerfile).to.contain('CMD ["node", "dist/src/main.js"]');
    const build = JSON.parse(readFileSync('tsconfig.build.json', 'utf8')) as { include: string[] };
    expect(build.include).to.include.members(['src', 'projections']);
  });
});
