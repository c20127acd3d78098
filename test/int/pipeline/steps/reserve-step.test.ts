import { expect } from 'chai';
import { chatEndpoint } from '../../../../src/endpoints/text/text-endpoints.js';
import type { Admitted } from '../../../../src/pipeline/request-stages.js';
import { authenticateStep } from '../../../../src/pipeline/steps/authenticate-step.js';
import { admitStep } from '../../../../src/pipeline/steps/admit-step.js';
import { estimateStep } from '../../../../src/pipeline/steps/estimate-step.js';
import { parseStep } from '../../../../src/pipeline/steps/parse-step.js';
import { reserveStep } from '../../../../src/pipeline/steps/reserve-step.js';
import { resolveModelStep } from '../../../../src/pipeline/steps/resolve-model-step.js';
import { MemoryConnection } from '../../../support/memory-connection.js';
import { openPipelineCore, type PipelineCore } from '../../../support/pipeline-core.js';
import { ScriptedProvider } from '../../../support/scripted-provider.js';
import { received } from '../../../support/pipeline-stages.js';

describe('pipeline step: reserve (real accounts on Postgres)', function () {
  this.timeout(30_000);
  let pipeline: PipelineCore;
  before(async () => {
    pipeline = await openPipelineCore('step_reserve', new ScriptedProvider());
  });
  after(() => pipeline?.close());

  /** A chat request of up to 100 tokens, admitted: 11 × 150 + 100 × 600 = 61,650 n$, 111 tokens a minute. */
  async function admitted(secret: string, requestId: string): Promise<Admitted> {
    const authenticated = authenticateStep(pipeline.deps, { ...received(chatEndpoint, new MemoryConnection({ authorization: `Bearer ${secret}` })), requestId });
    const body = { model: 'openai/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] };
    const parsed = parseStep({ ...authenticated, masking: 'off', body });
    return admitStep(pipeline.deps, await estimateStep(pipeline.deps, resolveModelStep(pipeline.deps, parsed)));
  }

  it('reserves the amount on the account and returns the reservation', async () => {
    const { orgId, secret } = await pipeline.customer(1_000_000n);
    const stage = await reserveStep(pipeline.deps, await admitted(secret, 'gen-reserveOk'));
    expect(stage.reservation).to.deep.include({ orgId, reservationId: 'gen-reserveOk', amount: 61_650n });
    // the step answers once the reserve is decided; the account shows it once it is recorded
    await stage.reservation.recorded;
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000n, reserved: 61_650n, available: 938_350n });
  });

  it('records which endpoint reserved, for the request log', async () => {
    const { orgId, secret } = await pipeline.customer(1_000_000n);
    await (await reserveStep(pipeline.deps, await admitted(secret, 'gen-reserveEndpoint'))).reservation.recorded;
    const [reserved] = (await pipeline.core.store.readStream(`account-${orgId}`)).filter((event) => event.type === 'FundsReserved');
    expect(reserved?.data).to.deep.include({ reservationId: 'gen-reserveEndpoint', endpoint: 'chat' });
  });

  it('refuses with 402 naming the reserve, and gives the admission back (the next request is not a 429)', async () => {
    // 61,000 n$ do not cover 61,650; a key allowing 111 tokens a minute fits exactly one such request
    const { orgId, secret } = await pipeline.customer(61_000n, { tpm: 111 });
    const refusal = await reserveStep(pipeline.deps, await admitted(secret, 'gen-reserve402')).catch((error: unknown) => error);
    expect(refusal).to.include({ code: 'insufficient_funds' });
    expect((refusal as Error).message).to.equal('organization balance insufficient for this request (this request reserves 0.00006165 USD; a smaller max_tokens or max_completion_tokens lowers the reserve)');
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 61_000n, reserved: 0n, available: 61_000n });
    // the correction is written after the refusal; the next admission finds the window empty again
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await admitted(secret, 'gen-reserveNext')).admittedTokens).to.equal(111);
  });

  it("refuses a request over the key's concurrency cap with 429, reserving nothing and giving the admission back", async () => {
    // two requests of 111 tokens fit the minute's 222; the second is refused by the cap, not the minute
    const { orgId, secret } = await pipeline.customer(1_000_000n, { maxConcurrentRequests: 1, tpm: 222 });
    await reserveStep(pipeline.deps, await admitted(secret, 'gen-capFirst'));
    const refusal = await reserveStep(pipeline.deps, await admitted(secret, 'gen-capSecond')).catch((error: unknown) => error);
    expect(refusal).to.include({ code: 'rate_limit_exceeded', status: 429, limit: 'concurrency', retryAfterSeconds: 1 });
    expect(await pipeline.core.accounts.balance(orgId)).to.deep.equal({ balance: 1_000_000n, reserved: 61_650n, available: 938_350n });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await admitted(secret, 'gen-capThird')).admittedTokens, 'the refused admission was given back').to.equal(111);
  });
});
