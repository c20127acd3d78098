import { expect } from 'chai';
import { ConfigError, loadConfig, runtimeMode } from '../../src/config.js';

describe('config', () => {
  it('gives every setting its default with an empty environment (embedded mode)', () => {
    const config = loadConfig({});
    expect(config).to.include({ PORT: 8080, HOST: '0.0.0.0', DATA_DIR: './.data', CATALOG_FILE: 'ops/catalog.example.yaml', LOG_LEVEL: 'info' });
    expect(config.DATABASE_URL).to.equal(undefined);
    expect(runtimeMode(config)).to.equal('embedded');
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).PORT).to.equal(8080);
  });

  it('switches to production mode with DATABASE_URL', () => {
    expect(runtimeMode(loadConfig({ DATABASE_URL: 'postgres://db/gateway' }))).to.equal('production');
  });

  it('runs the projections in the gateway unless told a worker does', () => {
    expect(loadConfig({}).PROJECTIONS).to.equal('in-process');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/gateway', PROJECTIONS: 'off' }).PROJECTIONS).to.equal('off');
  });

  it('leaves the account link off unless a port is given', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db/gateway' }).ACCOUNT_LINK_PORT).to.equal(undefined);
    const linked = loadConfig({ DATABASE_URL: 'postgres://db/gateway', ACCOUNT_LINK_PORT: '7070', ACCOUNT_LINK_SECRET: 'a-secret-of-16-chars' });
    expect([linked.ACCOUNT_LINK_PORT, linked.ACCOUNT_LINK_HOST]).to.deep.equal([7070, undefined]);
  });

  it('refuses requests while Redis is down unless told to count in the instance', () => {
    expect(loadConfig({}).REDIS_OUTAGE).to.equal('fail-closed');
    expect(loadConfig({ REDIS_OUTAGE: 'fail-open' }).REDIS_OUTAGE).to.equal('fail-open');
  });

  const bad: Array<[Record<string, string>, string, RegExp]> = [
    [{ REDIS_OUTAGE: 'ignore' }, 'REDIS_OUTAGE', /fail-closed/],
    [{ PORT: 'eighty' }, 'PORT', /number/i],
    [{ PORT: '70000' }, 'PORT', /65535/],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL', /postgres:\/\//],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL', /redis:\/\//],
    [{ EVENTSTORE_URL: 'http://x:2113' }, 'EVENTSTORE_URL', /esdb:\/\//],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /info/],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN', /16 characters/],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN', /16 characters/],
    [{ PROJECTIONS: 'elsewhere' }, 'PROJECTIONS', /in-process/],
    // embedded mode: only the gateway can open DATA_DIR, so no worker could project beside it
    [{ PROJECTIONS: 'off' }, 'PROJECTIONS', /needs DATABASE_URL/],
    [{ ACCOUNT_LINK_PORT: '-1' }, 'ACCOUNT_LINK_PORT', /0/],
    [{ ACCOUNT_LINK_SECRET: 'short' }, 'ACCOUNT_LINK_SECRET', /16 characters/],
    // the link carries money commands: never open without a secret
    [{ DATABASE_URL: 'postgres://db/gateway', ACCOUNT_LINK_PORT: '7070' }, 'ACCOUNT_LINK_PORT', /needs ACCOUNT_LINK_SECRET/],
    // an embedded gateway is the only one on its data directory: there is no other instance to link to
    [{ ACCOUNT_LINK_PORT: '7070', ACCOUNT_LINK_SECRET: 'a-secret-of-16-chars' }, 'ACCOUNT_LINK_PORT', /needs DATABASE_URL/],
  ];
  for (const [env, variable, reason] of bad) {
    it(`stops on a bad ${variable} with one line naming it`, () => {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).to.contain(`${variable}=`);
      expect(message).to.match(reason);
      expect(message).not.to.contain('\n');
    });
  }
});
