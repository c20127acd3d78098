import { expect } from 'chai';
import { sql } from 'kysely';
import { openPostgres, type Database } from '../../src/db/database.js';
import { SIGN_IN_FAILURES_ALLOWED } from '../../src/http/sign-in-throttle.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { TEST_ADMIN_TOKEN } from '../support/test-gateway.js';
import { chatBody, postJson, send, startFakeProvidersProcess, customerOf } from './reliability-support.js';

/**
 * Issue 37, item 7: keys issued, traffic on every kind of route with debug logging (successes, refusals,
 * a revoked key, the console's sign-in), then the logs, the event log, every table of the database (read
 * models of every generation included) and /metrics searched for every key secret and the admin token:
 * none is found. Key secrets are stored as SHA-256 hashes only (the admin token is never stored). Wrong
 * admin tokens are logged and, from the eleventh in a minute, answered 429 with Retry-After.
 */
describe('reliability: secrets stay out of logs, the event log, the read models and metrics', function () {
  this.timeout(60_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let fakes: Awaited<ReturnType<typeof startFakeProvidersProcess>>;
  let gateway: GatewayProcess;
  let database: Database;

  before(async () => {
    scratch = await createScratchDatabase('secrets');
    fakes = await startFakeProvidersProcess();
    gateway = await startGatewayProcess({ DATABASE_URL: scratch.url, LOG_LEVEL: 'debug' }, fakes);
    database = await openPostgres({ url: scratch.url, poolSize: 2 });
  });

  after(async () => {
    await gateway?.stop();
    await database?.close();
    await fakes?.close();
    await scratch?.drop();
  });

  it('finds no key secret nor the admin token anywhere after traffic with debug logs', async () => {
    const customer = await customerOf(gateway, { credits: '5' });
    const other = await gateway.admin.ok('POST', `/organizations/${customer.orgId}/keys`, { name: 'second' });
    const revoked = await gateway.admin.ok('POST', `/organizations/${customer.orgId}/keys`, { name: 'revoked' });
    const secrets = [customer.secret, other.key as string, revoked.key as string];
    await gateway.admin.ok('POST', `/keys/${revoked.id}/revoke`);
    const auth = (secret: string) => ({ authorization: `Bearer ${secret}` });
    for (const secret of secrets) {
      await postJson(`${gateway.url}/v1/chat/completions`, secret, chatBody({ stream: true }));
      await postJson(`${gateway.url}/v1/chat/completions`, secret, chatBody());
      await postJson(`${gateway.url}/v1/messages`, secret, { model: 'anthropic/claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
      await postJson(`${gateway.url}/v1/embeddings`, secret, { model: 'openai/text-embedding-3-small', input: 'Hi' });
      await postJson(`${gateway.url}/v1/chat/completions`, secret, { model: 'no/such-model', messages: [] });
      await send(`${gateway.url}/v1/models`, { headers: { 'x-api-key': secret } });
      await send(`${gateway.url}/v1/videos`, { headers: auth(secret) });
      // a secret sent where a secret does not belong: in the wrong header, and one character off
      await send(`${gateway.url}/v1/models`, { headers: { authorization: `Basic ${secret}` } });
      await postJson(`${gateway.url}/v1/chat/completions`, `${secret.slice(0, -1)}x`, chatBody());
    }
    const cookie = await send(`${gateway.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: gateway.url }, body: JSON.stringify({ token: TEST_ADMIN_TOKEN }) });
    expect(cookie.status).to.equal(204);
    await send(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}x` } });
    const metrics = await send(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(metrics.status).to.equal(200);
    await eventually(async () => expect((await gateway.admin.ok('GET', `/organizations/${customer.orgId}`)).reserved_usd).to.equal('0.00'));

    const places: Array<[string, string]> = [['logs', gateway.output()], ['/metrics', metrics.text]];
    const { rows: events } = await sql<{ text: string }>`select data::text || metadata::text as text from events`.execute(database.kysely);
    places.push(['the event log', events.map((row) => row.text).join('\n')]);
    const { rows: tables } = await sql<{ schema: string; name: string }>`
      select table_schema as schema, table_name as name from information_schema.tables
      where table_schema not in ('pg_catalog', 'information_schema')`.execute(database.kysely);
    expect(tables.length, 'tables searched').to.be.greaterThan(10);
    for (const table of tables) {
      const { rows } = await sql<{ text: string }>`select t::text as text from ${sql.id(table.schema, table.name)} t`.execute(database.kysely);
      places.push([`${table.schema}.${table.name}`, rows.map((row) => row.text).join('\n')]);
    }
    for (const [where, text] of places) {
      for (const [index, secret] of [...secrets, TEST_ADMIN_TOKEN].entries()) {
        expect(text.includes(secret), `${index < secrets.length ? `key secret ${index + 1}` : 'the admin token'} found in ${where}`).to.equal(false);
      }
    }
    // the key record keeps a SHA-256 of the secret, and its last four characters as a hint
    const { rows: issued } = await sql<{ data: { secretHash: string; secretHint: string } }>`select data from events where type = 'KeyIssued'`.execute(database.kysely);
    expect(issued.map((row) => row.data.secretHash)).to.have.length(3).and.to.satisfy((hashes: string[]) => hashes.every((hash) => /^[0-9a-f]{64}$/.test(hash)));
  });

  it('logs failed sign-ins and throttles them per client address with 429 and Retry-After', async () => {
    const answers: Array<Awaited<ReturnType<typeof send>>> = [];
    for (let attempt = 0; attempt < 30; attempt++) {
      answers.push(await send(`${gateway.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: gateway.url }, body: JSON.stringify({ token: `wrong-token-${attempt}-0123456789` }) }));
    }
    expect(answers.map((answer) => answer.status)).to.deep.equal([...Array(SIGN_IN_FAILURES_ALLOWED).fill(401), ...Array(30 - SIGN_IN_FAILURES_ALLOWED).fill(429)]);
    const throttled = answers.at(-1)!;
    expect(throttled.body.error.code).to.equal('rate_limit_exceeded');
    expect(Number(throttled.headers.get('retry-after'))).to.be.within(1, 60);
    // the admin API and /metrics share the count: the right token is refused too while throttled
    expect((await send(`${gateway.url}/admin/v1/organizations`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).status).to.equal(429);
    const logged = gateway.output().split('\n').filter((line) => line.includes('"failed sign-in'));
    expect(logged.length, 'each failure logged').to.be.at.least(SIGN_IN_FAILURES_ALLOWED);
    expect(logged[0]).to.match(/"clientAddress":"[^"]+"/);
    expect(logged.some((line) => line.includes('wrong-token')), 'the token tried is never logged').to.equal(false);
  });
});
