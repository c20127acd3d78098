import { expect } from 'chai';
import { NOT_ANSWERED } from '../../../../src/ledger/account-events.js';
import { createUsage } from '../../../../src/billing/usage.js';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import type { Reserved, Served } from '../../../../src/pipeline/request-stages.js';
import { admitStep } from '../../../../src/pipeline/steps/admit-step.js';
import { authenticateStep } from '../../../../src/pipeline/steps/authenticate-step.js';
import { closeStep } from '../../../../src/pipeline/steps/close-step.js';
import { estimateStep } from '../../../../src/pipeline/steps/estimate-step.js';
import { parseStep } from '../../../../src/pipeline/steps/parse-step.js';
import { reserveStep } from '../../../../src/pipeline/steps/reserve-step.js';
import { resolveModelStep } from '../../../../src/pipeline/steps/resolve-model-step.js';
import { MemoryConnection } from '../../../support/memory-connection.js';
import { openPipelineCore, type PipelineCore } from '../../../support/pipeline-core.js';
import { ScriptedProvider } from '../../../support/scripted-provider.js';
import { received } from '../../../support/pipeline-stages.js';

describe('pipeline step: close (real accounts on Postgres)', function () {
  this.timeout(30_000);
  let pipeline: PipelineCore;
  before(async () => {
    pipeline = await openPipelineCore('step_close', new ScriptedProvider());
  });
  after(() => pipeline?.close());

  /** A chat request of up to 100 tokens, reserved: 61,650 n$. */
  async function reserved(secret: string, requestId: string, masking: 'applied' | 'off' = 'off'): Promise<Reserved> {
    const authenticated = authenticateStep(pipeline.deps, { ...received(chatEndpoint, new MemoryConnection({ authorization: `Bearer ${secret}` })), requestId });
    const parsed = parseStep({ ...authenticated, masking, body: { model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] } });
    return reserveStep(pipeline.deps, await admitStep(pipeline.deps, await estimateStep(pipeline.deps, resolveModelStep(pipeline.deps, parsed))));
  }
  const served = (stage: Reserved, outcome: Served['outcome']): Served => ({ ...stage, outcome });

  it('settles the cost of the usage and corrects the tokens per minute to it', async () => {
    const { orgId, secret } = await pipeline.customer(1_000_000n);
    const stage = await reserved(secret, 'gen-closeSettle');
    // 12 × 150 + 7 × 600 = 1,800 + 4,200 = 6,000 n$
    const closed = await closeStep(pipeline.deps, served(stage, { closing: { kind: 'settle', usage: createUsage({ inputTokens: 12, outputTokens: 7 }) }, providerMs: 1 }));
    expect(closed.cost).to.equal(6_000n);
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 994_000n, reserved: 0n, available: 994_000n });
    // The window held the admission's 111 tokens; it now holds the 12 + 7 = 19 used, so 101 more fit a limit
    // of 120 (111 + 101 would not). The correction is written after the close: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const probe = await pipeline.deps.rateLimiter.admit(stage.caller.key.keyId, 'gen-probe', 101, { requestsPerMinute: 120, tokensPerMinute: 120 });
    expect(probe.allowed).to.equal(true);
  });

  it('releases in full, charging nothing and counting no tokens', async () => {
    const { orgId, secret } = await pipeline.customer(1_000_000n);
    const closed = await closeStep(pipeline.deps, served(await reserved(secret, 'gen-closeRelease'), { closing: { kind: 'release', reason: 'provider_error' }, providerMs: 1 }));
    expect(closed.cost).to.equal(0n);
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000n, reserved: 0n, available: 1_000_000n });
  });

  it('cuts off for what arrived', async () => {
    const { orgId, secret } = await pipeline.customer(1_000_000n);
    // 12 × 150 + 3 × 600 = 1,800 + 1,800 = 3,600 n$
    const closed = await closeStep(pipeline.deps, served(await reserved(secret, 'gen-closeCut'), { closing: { kind: 'cut_off', usage: createUsage({ inputTokens: 12, outputTokens: 3 }) }, providerMs: 1 }));
    expect(closed.cost).to.equal(3_600n);
    expect((await pipeline.core.store.readStream(`account-${orgId}`)).map((event) => event.type)).to.deep.equal(['CreditsAdded', 'FundsReserved', 'ReservationCutOff']);
  });

  it('charges a masked request its masking fee, settled or cut off, and records the fee apart; a release costs nothing', async () => {
    const { orgId, secret } = await pipeline.customer(10_000_000n);
    // reserve 61,650 + the test catalog's fee 2,000,000 = 2,061,650 n$; settle 6,000 (as above) + 2,000,000 = 2,006,000 n$
    const settled = await closeStep(pipeline.deps, served(await reserved(secret, 'gen-closeMasked', 'applied'), { closing: { kind: 'settle', usage: createUsage({ inputTokens: 12, outputTokens: 7 }) }, providerMs: 1 }));
    expect(settled.cost).to.equal(2_006_000n);
    // cut off: 3,600 + 2,000,000 = 2,003,600 n$
    const cut = await closeStep(pipeline.deps, served(await reserved(secret, 'gen-closeMaskedCut', 'applied'), { closing: { kind: 'cut_off', usage: createUsage({ inputTokens: 12, outputTokens: 3 }) }, providerMs: 1 }));
    expect(cut.cost).to.equal(2_003_600n);
    const released = await closeStep(pipeline.deps, served(await reserved(secret, 'gen-closeMaskedGone', 'applied'), { closing: { kind: 'release', reason: 'provider_error' }, providerMs: 1 }));
    expect(released.cost).to.equal(0n);
    // 10,000,000 − 2,006,000 − 2,003,600 = 5,990,400 n$
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 5_990_400n, reserved: 0n, available: 5_990_400n });
    const closings = (await pipeline.core.store.readStream(`account-${orgId}`)).filter((event) => event.type === 'ReservationSettled' || event.type === 'ReservationCutOff');
    // the tokens split by kind (12 × 150 = 1,800 input; 7 × 600 = 4,200 and 3 × 600 = 1,800 output), at the
    // price version 1 the reserve was made at (the test catalog's, recorded when the core opened)
    const price = { priceVersion: 1, serviceTier: null };
    expect(closings.map((event) => [event.metadata.schemaVersion, event.data])).to.deep.equal([
      [3, { reservationId: 'gen-closeMasked', cost: '2006000', usage: { inputTokens: 12, outputTokens: 7, piiMaskedRequests: 1 }, overrun: '0', piiMaskingFee: '2000000', costByKind: { input: '1800', output: '4200' }, ...price, ...NOT_ANSWERED }],
      [3, { reservationId: 'gen-closeMaskedCut', cost: '2003600', usage: { inputTokens: 12, outputTokens: 3, piiMaskedRequests: 1 }, piiMaskingFee: '2000000', costByKind: { input: '1800', output: '1800' }, ...price, ...NOT_ANSWERED }],
    ]);
  });
});
