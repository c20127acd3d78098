import { expect } from 'chai';
import { parseUsd } from '../../../src/billing/money.js';
import { decideAccount, type AccountCommand, type AccountDecision, type ConcurrencyCaps } from '../../../src/ledger/account-decider.js';
import type { AccountEvent, SpendOwner } from '../../../src/ledger/account-events.js';
import { deserializeAccountState, serializeAccountState } from '../../../src/ledger/account-snapshot.js';
import { applyAccountEvent, cloneAccountState, emptyAccountState, type AccountState } from '../../../src/ledger/account-state.js';

/**
 * The concurrency caps, decided by the account decider: a request holds a slot of its key (and of its
 * organization) from its `FundsReserved` to the event that closes it, or until its deadline passes, when
 * the sweeper may expire it. Given/when/then on the pure decider.
 */
const NOW = new Date('2026-11-21T12:00:00.000Z');
const keyA: SpendOwner = { keyId: 'key_a', employeeId: null, teamId: null, spaceId: null };
const keyB: SpendOwner = { ...keyA, keyId: 'key_b' };
const inTenMinutes = new Date(NOW.getTime() + 600_000).toISOString();

function given(...events: AccountEvent[]): AccountState {
  const state = emptyAccountState();
  for (const event of events) applyAccountEvent(state, event, NOW.toISOString());
  return state;
}
const credits: AccountEvent = { type: 'CreditsAdded', data: { amount: String(parseUsd('10')), idempotencyKey: null } };
const reserved = (id: string, owner: SpendOwner = keyA, deadline = inTenMinutes): AccountEvent => ({
  type: 'FundsReserved',
  data: { reservationId: id, endpoint: 'chat', ...owner, model: 'openai/gpt-4o-mini', category: 'text', amount: '1000', priceVersion: null, serviceTier: null, deadline, heldBy: null },
});

function reserve(concurrency: ConcurrencyCaps, owner: SpendOwner = keyA, amount = 1_000n): AccountCommand {
  return {
    type: 'ReserveFunds',
    reservationId: 'gen-new',
    endpoint: 'chat',
    owner,
    model: 'openai/gpt-4o-mini',
    category: 'text',
    amount,
    price: { version: null, serviceTier: null }, deadline: new Date(inTenMinutes),
    limits: {},
    concurrency,
    accessRevisions: {},
  };
}

function refusal(decision: AccountDecision) {
  if (!('rejection' in decision)) return expect.fail(`expected a refusal, got ${JSON.stringify(decision)}`);
  const { code, status, message, retryAfterSeconds } = decision.rejection;
  return { code, status, message, retryAfterSeconds };
}
const reservesOnce = (decision: AccountDecision) => expect(decision).to.have.property('events').with.length(1);

describe('account decider: concurrency caps', () => {
  it('refuses the key a third request while two are open, with 429 and Retry-After 1', () => {
    const state = given(credits, reserved('gen-1'), reserved('gen-2'));
    expect(refusal(decideAccount(state, reserve({ key: 2 }), NOW))).to.deep.equal({
      code: 'rate_limit_exceeded',
      status: 429,
      message: 'this API key already has 2 requests running, its max_concurrent_requests; retry when one of them has ended',
      retryAfterSeconds: 1,
    });
    reservesOnce(decideAccount(state, reserve({ key: 3 }), NOW));
    reservesOnce(decideAccount(state, reserve({}), NOW));
  });

  it("counts only the key's own requests against its cap", () => {
    reservesOnce(decideAccount(given(credits, reserved('gen-1', keyB), reserved('gen-2', keyB)), reserve({ key: 1 }), NOW));
  });

  for (const [name, closing] of [
    ['settled', { type: 'ReservationSettled', data: { reservationId: 'gen-1', cost: '900', usage: { version: 2 }, overrun: '0', piiMaskingFee: '0' } }],
    ['released', { type: 'ReservationReleased', data: { reservationId: 'gen-1', reason: 'provider_error' } }],
    ['cut off', { type: 'ReservationCutOff', data: { reservationId: 'gen-1', cost: '0', usage: { version: 2 }, piiMaskingFee: '0' } }],
    ['expired by the sweeper', { type: 'ReservationExpired', data: { reservationId: 'gen-1' } }],
  ] as Array<[string, AccountEvent]>) {
    it(`frees the slot of a request ${name}`, () => {
      const state = given(credits, reserved('gen-1'), reserved('gen-2'));
      refusal(decideAccount(state, reserve({ key: 2 }), NOW));
      applyAccountEvent(state, closing, NOW.toISOString());
      reservesOnce(decideAccount(state, reserve({ key: 2 }), NOW));
    });
  }

  it('frees the slot of a request past its deadline, before the sweeper has expired it; its money stays held', () => {
    const state = given(credits, reserved('gen-1', keyA, '2026-11-21T12:00:00.000Z'), reserved('gen-2'));
    reservesOnce(decideAccount(state, reserve({ key: 2 }), NOW));
    expect(state.reserved).to.equal(2_000n);
    // a moment earlier, the first one still held its slot
    refusal(decideAccount(state, reserve({ key: 2 }), new Date(NOW.getTime() - 1)));
  });

  it("caps the organization's requests of every key together", () => {
    const state = given(credits, reserved('gen-1', keyA), reserved('gen-2', keyB));
    expect(refusal(decideAccount(state, reserve({ organization: 2 }, keyB), NOW)).message).to.equal(
      'the organization already has 2 requests running, its max_concurrent_requests; retry when one of them has ended',
    );
    reservesOnce(decideAccount(state, reserve({ organization: 3, key: 2 }, keyB), NOW));
  });

  it('tells a request the organization cannot pay for that it cannot (402), not to come back later', () => {
    const state = given(reserved('gen-1'));
    expect(refusal(decideAccount(state, reserve({ key: 1 }), NOW)).code).to.equal('insufficient_funds');
  });

  it('keeps the open requests of each key through a snapshot and a speculative copy', () => {
    const state = given(credits, reserved('gen-1'), reserved('gen-2', keyB));
    const restored = deserializeAccountState(JSON.parse(JSON.stringify(serializeAccountState(state))));
    refusal(decideAccount(restored, reserve({ key: 1 }), NOW));
    const copy = cloneAccountState(state);
    applyAccountEvent(copy, { type: 'ReservationReleased', data: { reservationId: 'gen-1', reason: 'cancelled' } }, NOW.toISOString());
    reservesOnce(decideAccount(copy, reserve({ key: 1 }), NOW));
    refusal(decideAccount(state, reserve({ key: 1 }), NOW));
  });
});
