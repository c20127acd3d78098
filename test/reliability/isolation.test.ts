import { expect } from 'chai';
import { openPostgres, type Database } from '../../src/db/database.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import { createScratchDatabase } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { accountEvents, chatBody, postJson, send, startFakeProvidersProcess, customerOf } from './reliability-support.js';

/**
 * Issue 37, item 6: every client route that takes an id (the video job routes; a space through
 * X-Service-Space) tried with another organization's id answers exactly as for an id that does not exist,
 * so nothing says the other's exists; and a key of one organization never spends another's money, with
 * both organizations' keys busy at once.
 */
describe('reliability: isolation between organizations', function () {
  this.timeout(60_000);
  let scratch: { url: string; drop: () => Promise<void> };
  let fakes: Awaited<ReturnType<typeof startFakeProvidersProcess>>;
  let gateway: GatewayProcess;
  let database: Database;
  let store: PostgresEventStore;

  before(async () => {
    scratch = await createScratchDatabase('isolation');
    fakes = await startFakeProvidersProcess();
    gateway = await startGatewayProcess({ DATABASE_URL: scratch.url }, fakes);
    database = await openPostgres({ url: scratch.url, poolSize: 2 });
    store = new PostgresEventStore(database);
  });

  after(async () => {
    await gateway?.stop();
    await store?.close();
    await database?.close();
    await fakes?.close();
    await scratch?.drop();
  });

  /** The answer without what differs between any two answers (the request id). */
  const shape = (answer: Awaited<ReturnType<typeof send>>) => ({ status: answer.status, body: answer.body });

  it('answers another organization\'s video job and space as ones that do not exist', async () => {
    const mine = await customerOf(gateway, { credits: '5' });
    const theirs = await customerOf(gateway, { credits: '5' });
    const job = await postJson(`${gateway.url}/v1/videos`, theirs.secret, { model: 'openai/sora-2', prompt: 'a lighthouse', seconds: 4 });
    expect(job.status).to.equal(200);
    const theirSpace = (await gateway.admin.ok('POST', `/organizations/${theirs.orgId}/spaces`, { name: 'theirs' })).id as string;
    const asMine = (path: string, method = 'GET') => send(`${gateway.url}${path}`, { method, headers: { authorization: `Bearer ${mine.secret}` } });
    const absent = 'video_doesNotExist0000000000';
    for (const [path, method] of [['', 'GET'], ['/content', 'GET'], ['', 'DELETE']] as const) {
      const other = await asMine(`/v1/videos/${job.body.id}${path}`, method);
      const none = await asMine(`/v1/videos/${absent}${path}`, method);
      expect(shape(other), `${method} /v1/videos/{id}${path}`).to.deep.equal({ ...shape(none), body: { error: { ...none.body.error, message: none.body.error.message.replace(absent, job.body.id) } } });
      expect(other.body.error.code).to.equal('video_not_found');
    }
    const listed = await asMine('/v1/videos');
    expect(listed.body.data, 'my list shows none of theirs').to.deep.equal([]);
    // their job still as it was: my DELETE did not cancel it
    expect((await send(`${gateway.url}/v1/videos/${job.body.id}`, { headers: { authorization: `Bearer ${theirs.secret}` } })).body.error ?? null).to.equal(null);

    const withTheirSpace = await postJson(`${gateway.url}/v1/chat/completions`, mine.secret, chatBody(), { 'x-service-space': theirSpace });
    const withNoSpace = await postJson(`${gateway.url}/v1/chat/completions`, mine.secret, chatBody(), { 'x-service-space': 'spc_doesNotExist00000000000' });
    expect(withTheirSpace.status).to.equal(400);
    expect(withTheirSpace.body.error.code).to.equal('invalid_space');
    expect(withTheirSpace.body.error.message.replace(theirSpace, '…')).to.equal(withNoSpace.body.error.message.replace('spc_doesNotExist00000000000', '…'));
    expect((await accountEvents(store, mine.orgId)).map((event) => event.type), 'nothing reserved for the refused requests').to.deep.equal(['CreditsAdded']);
  });

  it('never lets a key spend another organization\'s money, with both busy at once', async () => {
    const first = await customerOf(gateway, { credits: '5', key: { rpm: 10_000 } });
    const second = await customerOf(gateway, { credits: '5', key: { rpm: 10_000 } });
    const keyIds = new Map([[first.orgId, first.keyId], [second.orgId, second.keyId]]);
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, index) => {
        const customer = index % 2 === 0 ? first : second;
        return postJson(`${gateway.url}/v1/chat/completions`, customer.secret, chatBody({ stream: index % 4 < 2 }));
      }),
    );
    expect(answers.every((answer) => answer.status === 200)).to.equal(true);
    await eventually(async () => {
      for (const orgId of [first.orgId, second.orgId]) {
        const reserves = (await accountEvents(store, orgId)).filter((event) => event.type === 'FundsReserved');
        expect(reserves, orgId).to.have.length(40);
        expect(new Set(reserves.map((event) => event.type === 'FundsReserved' && event.data.keyId)), `${orgId}: only its own key`).to.deep.equal(new Set([keyIds.get(orgId)]));
      }
    });
  });
});
