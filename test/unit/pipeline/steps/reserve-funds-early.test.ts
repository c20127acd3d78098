import { expect } from 'chai';
import type { AccessDirectory } from '../../../../src/access/access-directory.js';
import { GatewayError } from '../../../../src/errors/gateway-error.js';
import type { AccountDecision } from '../../../../src/ledger/account-decider.js';
import type { AccountOutcome, Accounts, EarlyOutcome } from '../../../../src/ledger/accounts.js';
import { reserveFunds, type ReserveInput } from '../../../../src/pipeline/steps/reserve-step.js';
import { NOW, testCaller, testModel } from '../../../support/pipeline-stages.js';

/**
 * The reserve acts on the account's decision as soon as it is made (`executeEarly`), and its `recorded`
 * says whether the reservation was then recorded. The accounts here answer as a test scripts them: what the
 * account decided, then what was recorded (the decision itself is the account decider's, tested apart).
 */
const reserved: AccountDecision = { events: [] };
const refused: AccountDecision = { rejection: new GatewayError('insufficient_funds', 'organization balance insufficient for this request') };
const outcome = (decision: AccountDecision): AccountOutcome => ({ decision, balance: 0n, reserved: 0n });

function scriptedAccounts(decided: AccountDecision, durable: Promise<AccountDecision>): Accounts {
  return {
    executeEarly: async (): Promise<EarlyOutcome> => ({ decided: outcome(decided), durable: durable.then(outcome) }),
    execute: () => Promise.reject(new Error('the reserve asks for the early outcome')),
    balance: () => Promise.reject(new Error('not used')),
    saveSnapshot: () => Promise.reject(new Error('not used')),
    evictAll: () => undefined,
  };
}

const directory = { accessStreamsOf: () => [], revision: () => 0n } as unknown as AccessDirectory;
const clock = { now: () => NOW };

async function input(): Promise<ReserveInput> {
  return {
    requestId: 'gen-early',
    endpoint: 'chat',
    caller: testCaller(),
    model: await testModel('openai/gpt-4o-mini'),
    // 61,650 n$: 11 input tokens at 0.15 USD/Mtok + 100 output tokens at 0.60 USD/Mtok
    amount: 61_650n,
    price: { version: 1, serviceTier: null },
    capHint: 'a smaller max_tokens or max_completion_tokens lowers the reserve',
    lifetimeMs: 60_000,
    heldBy: null,
  };
}

describe('pipeline step: reserve, acting on the decision while it commits', () => {
  it('returns the reservation as soon as it is decided, its `recorded` settling once the reserve is', async () => {
    let commit!: (decision: AccountDecision) => void;
    const durable = new Promise<AccountDecision>((resolve) => (commit = resolve));
    const reservation = await reserveFunds(scriptedAccounts(reserved, durable), directory, clock, await input());
    expect(reservation).to.deep.include({ orgId: testCaller().organization.orgId, reservationId: 'gen-early', amount: 61_650n });
    let settled = false;
    void reservation.recorded.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled, 'not recorded yet').to.equal(false);
    commit(reserved);
    await reservation.recorded;
  });

  it('rejects `recorded` with the 402 the client gets when a lost race decided the reserve again as a refusal', async () => {
    const reservation = await reserveFunds(scriptedAccounts(reserved, Promise.resolve(refused)), directory, clock, await input());
    const failure = await reservation.recorded.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(GatewayError);
    expect(failure).to.include({ code: 'insufficient_funds' });
    expect((failure as Error).message).to.equal(
      'organization balance insufficient for this request (this request reserves 0.00006165 USD; a smaller max_tokens or max_completion_tokens lowers the reserve)',
    );
  });

  it("rejects `recorded` with the store's failure when the append fails", async () => {
    const outage = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    const reservation = await reserveFunds(scriptedAccounts(reserved, Promise.reject(outage)), directory, clock, await input());
    const failure = await reservation.recorded.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.equal(outage);
  });

  it('throws a refusal decided at once, without a reservation', async () => {
    const failure = await reserveFunds(scriptedAccounts(refused, Promise.resolve(refused)), directory, clock, await input()).catch((error: unknown) => error);
    expect(failure).to.include({ code: 'insufficient_funds' });
  });
});
