import { expect } from 'chai';
import OpenAI from 'openai';
import { decodeAccountEvent } from '../../src/ledger/account-event-catalogue.js';
import { parseUsd } from '../../src/billing/money.js';
import type { AdminClient } from '../support/admin-client.js';
import { testDatabaseUrl } from '../support/databases.js';
import { eventually } from '../support/eventually.js';
import type { FakeProviderServer } from '../../ops/fake-providers/fake-provider-server.js';
import { startGatewayHarness, type GatewayHarness } from '../support/gateway-harness.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

/**
 * Issue #6, spec 5 rule 7 and 7.2 `key_revoked`: a key revoked while a NON-streaming request runs cuts
 * that request off: the client gets `401 authentication_error key_revoked` instead of the answer, the
 * provider call is abandoned, and the reservation is closed as `ReservationCutOff`, charged for what was
 * received (nothing: a JSON answer is all or nothing, and none had arrived). Streams: chat-completions.test.ts.
 *
 * No timing: the fake provider holds its answer until the test lets it go, and the test lets it go only
 * once the gateway running the request (process A, in this process) refuses the key on /v1/models, i.e.
 * once A has applied the revocation. A gateway that did not cut the request off then delivers the answer.
 */
const TEN_USD = parseUsd('10');

interface Outcome {
  readonly status: number;
  /** The error body as the client got it (`{error}`, or `{type: error, error}` on /v1/messages). */
  readonly body: any;
  readonly requestId: string | null;
}

describe('key revoked during a non-streaming request', function () {
  this.timeout(90_000);
  let harness: GatewayHarness;
  let second: GatewayProcess;

  before(async () => {
    harness = await startGatewayHarness();
    // another instance of the same deployment as its own OS process: same database, same log
    second = await startGatewayProcess({ DATABASE_URL: testDatabaseUrl() }, { openai: harness.openai.url, anthropic: harness.anthropic.url });
  });
  after(async () => {
    await second?.stop();
    await harness?.checkLedger();
    await harness?.close();
  });
  beforeEach(() => {
    harness.openai.reset();
    harness.anthropic.reset();
  });

  /** Chat completions through the official SDK: the error as the SDK surfaces it. */
  async function chat(secret: string): Promise<Outcome> {
    const client = new OpenAI({ apiKey: secret, baseURL: `${harness.gateway.url}/v1`, maxRetries: 0 });
    try {
      const { response } = await client.chat.completions
        .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Write a long story.' }], max_tokens: 500 })
        .withResponse();
      return { status: response.status, body: undefined, requestId: response.headers.get('x-request-id') };
    } catch (error) {
      if (!(error instanceof OpenAI.APIError)) throw error;
      return { status: error.status ?? 0, body: { error: error.error }, requestId: error.headers?.get('x-request-id') ?? null };
    }
  }

  /** The messages format, whose error body carries `code` only for key_revoked (spec 2.3). */
  async function messages(secret: string): Promise<Outcome> {
    const response = await fetch(`${harness.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/claude-sonnet-4-5', max_tokens: 500, messages: [{ role: 'user', content: 'Write a long story.' }] }),
    });
    return { status: response.status, body: await response.json(), requestId: response.headers.get('x-request-id') };
  }

  /**
   * Sends a request to process A whose answer `provider` holds, revokes the key through `revokeOn`'s
   * admin API, waits until A refuses the key, then lets the provider answer.
   */
  async function revokeWhileRunning(send: (secret: string) => Promise<Outcome>, provider: FakeProviderServer, revokeOn: AdminClient) {
    const { orgId, keyId, secret } = await harness.customer('10');
    let release!: () => void;
    provider.enqueue({ holdUntil: new Promise<void>((resolve) => (release = resolve)) });
    const answer = send(secret);
    try {
      // the request is past its reserve and at the provider, which holds the answer
      await eventually(async () => expect(provider.requests).to.have.length(1));
      const atProvider = provider.requests[0]!;
      expect((await revokeOn.ok('POST', `/keys/${keyId}/revoke`)).status).to.equal('revoked');
      // A has applied KeyRevoked (through its event-store subscription when revoked on the other process)
      await eventually(async () => expect((await fetch(`${harness.gateway.url}/v1/models`, { headers: { 'x-api-key': secret } })).status).to.equal(401));
      release();
      return { orgId, outcome: await answer, providerOutcome: await atProvider.outcome };
    } finally {
      release();
    }
  }

  /** Reserved, then cut off (not settled, not released) at no cost; the balance is whole again. */
  async function expectCutOffInTheLog(orgId: string, requestId: string | null): Promise<void> {
    expect(requestId).to.match(/^gen-/);
    await eventually(async () => {
      const events = (await harness.gateway.store.readStream(`account-${orgId}`)).map(decodeAccountEvent);
      const ofRequest = events.filter((event) => 'reservationId' in event.data && event.data.reservationId === requestId);
      expect(ofRequest.map((event) => event.type)).to.deep.equal(['FundsReserved', 'ReservationCutOff']);
      expect(BigInt((ofRequest[1]!.data as { cost: string }).cost), 'charged for what was received').to.equal(0n);
    });
    expect(await harness.settledMoney(orgId)).to.deep.equal({ balance: TEN_USD, reserved: 0n });
    await harness.checkLedger();
  }

  for (const [where, revokeOn] of [
    ['the same process', () => harness.admin],
    ['another gateway process', () => second.admin],
  ] as const) {
    it(`chat: cuts the request off with 401 key_revoked when the key is revoked through ${where}`, async () => {
      const { orgId, outcome, providerOutcome } = await revokeWhileRunning(chat, harness.openai, revokeOn());
      expect(outcome.status, 'the client gets the cut-off, not the answer').to.equal(401);
      expect(outcome.body.error).to.include({ type: 'authentication_error', code: 'key_revoked' });
      expect(providerOutcome, 'the gateway hung up on the provider').to.equal('closed');
      await expectCutOffInTheLog(orgId, outcome.requestId);
    });
  }

  it('messages: cuts the request off with 401 key_revoked, the code in the messages error body', async () => {
    const { orgId, outcome, providerOutcome } = await revokeWhileRunning(messages, harness.anthropic, second.admin);
    expect(outcome.status, 'the client gets the cut-off, not the answer').to.equal(401);
    expect(outcome.body.type).to.equal('error');
    expect(outcome.body.error).to.include({ type: 'authentication_error', code: 'key_revoked' });
    expect(providerOutcome, 'the gateway hung up on the provider').to.equal('closed');
    await expectCutOffInTheLog(orgId, outcome.requestId);
  });
});
