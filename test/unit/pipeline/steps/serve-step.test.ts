import { expect } from 'chai';
import type { AccessDirectory } from '../../../../src/access/access-directory.js';
import type { KeyState } from '../../../../src/access/key-decider.js';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import { GatewayError } from '../../../../src/errors/gateway-error.js';
import { InFlightRequests } from '../../../../src/pipeline/in-flight-requests.js';
import { DeploymentHealth } from '../../../../src/pipeline/deployment-health.js';
import type { Reserved } from '../../../../src/pipeline/request-stages.js';
import { estimateStep } from '../../../../src/pipeline/steps/estimate-step.js';
import { parseStep } from '../../../../src/pipeline/steps/parse-step.js';
import { serveStep } from '../../../../src/pipeline/steps/serve-step.js';
import { MemoryConnection } from '../../../support/memory-connection.js';
import { ScriptedProvider } from '../../../support/scripted-provider.js';
import { bodyRead, NOW, testPrices, testCaller, resolvedModel } from '../../../support/pipeline-stages.js';

const headers = { contentType: 'application/json', retryAfter: undefined, requestId: undefined };
const completion = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } };

describe('pipeline step: serve', () => {
  let revoke: (key: KeyState) => void;
  const directory = { onKeyChange: (listener: (key: KeyState) => void) => ((revoke = listener), () => undefined) } as unknown as AccessDirectory;

  async function reserved(connection: MemoryConnection, recorded: Promise<void> = Promise.resolve()): Promise<Reserved> {
    const parsed = parseStep(bodyRead(chatEndpoint, { model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }, testCaller(), connection));
    const estimated = await estimateStep({ prices: await testPrices(), clock: { now: () => NOW } }, { ...parsed, ...(await resolvedModel('openai/gpt-4o-mini')) });
    const reservation = { orgId: 'org_step', reservationId: 'gen-step', owner: { keyId: 'key_step', employeeId: null, teamId: null, spaceId: null }, amount: estimated.amount, caller: estimated.caller, recorded };
    return { ...estimated, admittedTokens: 111, reservation };
  }

  it('answers the client and settles for the usage of the answer', async () => {
    const connection = new MemoryConnection();
    const providers = new ScriptedProvider(async () => ({ type: 'body', status: 200, headers, body: Buffer.from(JSON.stringify(completion)) }));
    const { outcome } = await serveStep({ providers, inFlight: new InFlightRequests(directory), deploymentHealth: new DeploymentHealth() }, await reserved(connection));
    expect(outcome.closing).to.deep.include({ kind: 'settle' });
    expect(outcome.closing.kind === 'settle' && outcome.closing.usage).to.include({ inputTokens: 12, outputTokens: 7 });
    expect(connection.sent).to.have.length(1);
    expect(connection.sent[0]).to.deep.include({ kind: 'json', status: 200 });
    expect((connection.sent[0] as { body: { id: string } }).body.id).to.equal('gen-step');
    expect(connection.watched, 'it stops listening for the client once done').to.equal(false);
  });

  it("passes the provider's own error on as it is and releases the reservation", async () => {
    const connection = new MemoryConnection();
    const providers = new ScriptedProvider(async () => ({ type: 'body', status: 429, headers: { ...headers, retryAfter: '7' }, body: Buffer.from('{"error":{"message":"slow down"}}') }));
    const { outcome } = await serveStep({ providers, inFlight: new InFlightRequests(directory), deploymentHealth: new DeploymentHealth() }, await reserved(connection));
    expect(outcome).to.deep.include({ closing: { kind: 'release', reason: 'provider_error' }, providerFailure: 'status_4xx' });
    expect(connection.sent).to.deep.equal([{ kind: 'provider', status: 429, contentType: 'application/json', retryAfter: '7', body: '{"error":{"message":"slow down"}}' }]);
  });

  it('never throws: a provider that cannot be reached becomes a release with the error for the client', async () => {
    const unreachable = new GatewayError('provider_error', 'connection refused', { cause: new Error('ECONNREFUSED') });
    const providers = new ScriptedProvider(() => Promise.reject(unreachable));
    const { outcome } = await serveStep({ providers, inFlight: new InFlightRequests(directory), deploymentHealth: new DeploymentHealth() }, await reserved(new MemoryConnection()));
    expect(outcome).to.deep.include({ closing: { kind: 'release', reason: 'provider_error' }, error: unreachable, providerFailure: 'connection' });
  });

  it('a client that goes away aborts the call and releases the reservation as cancelled', async () => {
    const connection = new MemoryConnection();
    const providers = new ScriptedProvider((call) => new Promise((_resolve, reject) => call.signal!.addEventListener('abort', () => reject(call.signal!.reason))));
    const serving = serveStep({ providers, inFlight: new InFlightRequests(directory), deploymentHealth: new DeploymentHealth() }, await reserved(connection));
    await new Promise((resolve) => setImmediate(resolve));
    connection.goAway();
    const { outcome } = await serving;
    expect(outcome.closing).to.deep.equal({ kind: 'release', reason: 'cancelled' });
    expect(outcome.error).to.equal(undefined);
  });

  it('a key revoked during the call cuts the request off: charged what arrived (nothing), the client gets key_revoked', async () => {
    const providers = new ScriptedProvider((call) => new Promise((_resolve, reject) => call.signal!.addEventListener('abort', () => reject(call.signal!.reason))));
    const serving = serveStep({ providers, inFlight: new InFlightRequests(directory), deploymentHealth: new DeploymentHealth() }, await reserved(new MemoryConnection()));
    await new Promise((resolve) => setImmediate(resolve));
    revoke({ ...testCaller().key, revoked: true });
    const { outcome } = await serving;
    expect(outcome.closing).to.deep.equal({ kind: 'cut_off', usage: { version: 2 } });
    expect(outcome.error).to.have.property('code', 'key_revoked');
  });

  it('calls the provider while the reservation commits, and shows the client nothing before it is recorded', async () => {
    const connection = new MemoryConnection();
    let commit!: () => void;
    const recorded = new Promise<void>((resolve) => (commit = resolve));
    let called = false;
    const providers = new ScriptedProvider(async () => {
      called = true;
      return { type: 'body', status: 200, headers, body: Buffer.from(JSON.stringify(completion)) };
    });
    const serving = serveStep({ providers, inFlight: new InFlightRequests(directory), deploymentHealth: new DeploymentHealth() }, await reserved(connection, recorded));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(called, 'the provider is called before the reservation is recorded').to.equal(true);
    expect(connection.sent, 'nothing reaches the client before it is').to.deep.equal([]);
    commit();
    const { outcome } = await serving;
    expect(outcome.closing).to.deep.include({ kind: 'settle' });
    expect(connection.sent).to.have.length(1);
  });

  it('aborts the provider call when the reservation cannot be recorded: nothing to close, the client gets the store failure', async () => {
    const connection = new MemoryConnection();
    const outage = new GatewayError('service_unavailable', 'the event store is unavailable');
    let fail!: (error: unknown) => void;
    const recorded = new Promise<void>((_resolve, reject) => (fail = reject));
    let abortedWith: unknown;
    const providers = new ScriptedProvider((call) => new Promise((_resolve, reject) => call.signal!.addEventListener('abort', () => reject((abortedWith = call.signal!.reason)))));
    const serving = serveStep({ providers, inFlight: new InFlightRequests(directory), deploymentHealth: new DeploymentHealth() }, await reserved(connection, recorded));
    await new Promise((resolve) => setImmediate(resolve));
    fail(outage);
    const { outcome } = await serving;
    expect(outcome).to.deep.include({ closing: { kind: 'not_recorded' }, error: outage });
    expect(abortedWith, 'the provider call was aborted').to.equal('reservation_not_recorded');
    expect(connection.sent).to.deep.equal([]);
  });

  it("cancels a provider's stream that began before the reservation turned out not to be recorded", async () => {
    const connection = new MemoryConnection();
    let fail!: (error: unknown) => void;
    const recorded = new Promise<void>((_resolve, reject) => (fail = reject));
    let cancelled = false;
    const events = { eventsReceived: 0, failure: undefined, cancel: () => void (cancelled = true), [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true as const, value: undefined }) }) };
    const providers = new ScriptedProvider(async () => ({ type: 'stream', status: 200, headers: { ...headers, contentType: 'text/event-stream' }, events }));
    const serving = serveStep({ providers, inFlight: new InFlightRequests(directory), deploymentHealth: new DeploymentHealth() }, await reserved(connection, recorded));
    await new Promise((resolve) => setTimeout(resolve, 20));
    fail(new GatewayError('service_unavailable', 'the event store is unavailable'));
    const { outcome } = await serving;
    expect(outcome.closing).to.deep.equal({ kind: 'not_recorded' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(cancelled, 'the stream the provider had begun is closed').to.equal(true);
    expect(connection.sent).to.deep.equal([]);
  });
});
