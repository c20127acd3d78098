import { expect } from 'chai';
import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import { accountStreamId } from '../../../src/ledger/account-events.js';
import type { ScriptedAnswer, ScriptedUsage } from '../../../ops/fake-providers/scripted-answer.js';
import type { GatewayHarness } from '../../support/gateway-harness.js';
import { CLIENT_FORMATS, postText, streamViolations, textRequest, type ClientFormat, type GatewayAnswer } from '../../support/text-format-client.js';

/**
 * What the token-kind suites share. Every expected amount in them is a literal worked out by hand, in
 * nanodollars (n$, 1 USD = 10^9 n$), from the price sheet the three `*-kinds` models of the test catalog
 * (test/support/catalog.test.yaml) share, a rate of its own for every kind:
 *
 * | kind | USD per M tokens | n$ a token |
 * |---|---|---|
 * | input, uncached | 3.00 | 3,000 |
 * | cache read | 0.30 | 300 |
 * | cache write, 5 minutes | 3.75 | 3,750 |
 * | cache write, 1 hour | 6.00 | 6,000 |
 * | audio input | 40.00 | 40,000 |
 * | output (reasoning too) | 15.00 | 15,000 |
 * | audio output | 80.00 | 80,000 |
 *
 * So a kind charged at another kind's rate, dropped, or counted twice changes the amount. The three models
 * are one per provider format: a client of the same format is served by pass-through, the other two by
 * translation.
 */
export const KINDS_MODELS: Readonly<Record<FormatName, { readonly model: string; readonly fake: 'openai' | 'anthropic' }>> = {
  chat: { model: 'local/chat-kinds', fake: 'openai' },
  messages: { model: 'anthropic/claude-kinds', fake: 'anthropic' },
  responses: { model: 'oairesp/responses-kinds', fake: 'openai' },
};

/** Every organization starts with $1. */
export const CREDITS = 1_000_000_000n;
/**
 * The output cap of every request: its reserve, 8,000 × 15,000 = 120,000,000 n$ plus the input, is above
 * every charge of these suites, so none is an overrun.
 */
export const MAX_TOKENS = 8_000;

/** One row of a suite's table: what the provider reports, and what that must cost. */
export interface KindCase {
  /** What the row is about, e.g. `1-hour cache writes`. */
  readonly kind: string;
  /** In the provider's own meaning (ops/fake-providers/scripted-answer.ts). */
  readonly usage: ScriptedUsage;
  /** The charge in n$, a literal worked out in the row's comment. */
  readonly charge: bigint;
}

/** The costs of the organization's settle events, once nothing is reserved. */
export async function settledCosts(harness: GatewayHarness, orgId: string): Promise<bigint[]> {
  await harness.settledMoney(orgId);
  const events = await harness.gateway.store.readStream(accountStreamId(orgId));
  return events.filter((event) => event.type === 'ReservationSettled').map((event) => BigInt((event.data as { cost: string }).cost));
}

/** What a request cost: its one settle event's cost, and the organization's balance change (the two must agree). */
export async function chargeOfOnlyRequest(harness: GatewayHarness, orgId: string): Promise<bigint> {
  const costs = await settledCosts(harness, orgId);
  expect(costs, 'one settled request').to.have.length(1);
  const { balance, reserved } = await harness.settledMoney(orgId);
  expect(reserved).to.equal(0n);
  expect(CREDITS - balance, 'the balance moved by the settled cost').to.equal(costs[0]);
  return costs[0]!;
}

export interface Exchange {
  readonly answer: GatewayAnswer;
  readonly charge: bigint;
}

/** A request of `client` to the `provider`-format model, the provider scripted with `script`; its answer and its charge. */
export async function exchange(harness: GatewayHarness, client: ClientFormat, provider: FormatName, stream: boolean, script: ScriptedAnswer): Promise<Exchange> {
  const { orgId, secret } = await harness.customer('1');
  const { model, fake } = KINDS_MODELS[provider];
  harness[fake].enqueue(script);
  const answer = await postText(harness.gateway.url, client, secret, textRequest(client, model, { stream, maxTokens: MAX_TOKENS }));
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  if (stream) {
    expect(terminalOf(client, answer), 'the stream ended as a success').to.equal(true);
    expect(streamViolations(client, answer.events!), 'the stream grammar').to.deep.equal([]);
  }
  return { answer, charge: await chargeOfOnlyRequest(harness, orgId) };
}

/** Whether a stream ended with its format's successful last event. */
function terminalOf(client: ClientFormat, answer: GatewayAnswer): boolean {
  const last = answer.events!.at(-1);
  switch (client) {
    case 'chat':
      return last?.data === '[DONE]';
    case 'messages':
      return last?.event === 'message_stop';
    case 'responses':
      return last?.event === 'response.completed';
  }
}

/** How a client of `client` format is served by a `provider`-format model. */
export function modeOf(client: ClientFormat, provider: FormatName): 'pass-through' | 'translated' {
  return client === provider ? 'pass-through' : 'translated';
}

/**
 * The matrix of one provider format: every row × every client format (one passed through, two translated)
 * × streaming and not. The charge depends only on what the provider reported, so each row's literal holds
 * in all six cells.
 */
export function chargeMatrix(provider: FormatName, rows: readonly KindCase[], harness: () => GatewayHarness): void {
  for (const row of rows) {
    describe(row.kind, () => {
      for (const client of CLIENT_FORMATS) {
        for (const stream of [false, true]) {
          it(`${client} client, ${modeOf(client, provider)}, ${stream ? 'streamed' : 'JSON'}: ${row.charge.toLocaleString('en-US')} n$`, async () => {
            const { charge } = await exchange(harness(), client, provider, stream, { usage: row.usage });
            expect(charge).to.equal(row.charge);
          });
        }
      }
    });
  }
}
