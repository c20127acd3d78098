import { expect } from 'chai';
import { applyAccountEvent, emptyAccountState } from '../../../src/ledger/account-state.js';
import { deserializeAccountState, serializeAccountState } from '../../../src/ledger/account-snapshot.js';
import { createUsage } from '../../../src/billing/usage.js';
import { NOT_ANSWERED } from '../../../src/ledger/account-events.js';

const AT = '2026-11-25T12:00:00.000Z';

describe('account state in a snapshot', () => {
  it('a reservation open in the snapshot is counted against its scopes when it settles after the restore', () => {
    const state = emptyAccountState();
    applyAccountEvent(state, { type: 'CreditsAdded', data: { amount: '10000000000', idempotencyKey: null } }, AT);
    applyAccountEvent(
      state,
      {
        type: 'FundsReserved',
        data: { reservationId: 'gen-open1', endpoint: 'chat', keyId: 'key_a', employeeId: 'emp_a', teamId: 'team_a', spaceId: null, model: 'openai/gpt-4o-mini', category: 'text', amount: '2000000000', priceVersion: null, serviceTier: null, deadline: '2026-11-25T12:10:00.000Z', heldBy: 'instance-a' },
      },
      AT,
    );
    const serialized = serializeAccountState(state);
    // The stored form carries no scopes: snapshots written before they were kept in memory load alike.
    expect(serialized.open[0]).to.not.have.property('scopes');

    const restored = deserializeAccountState(JSON.parse(JSON.stringify(serialized)) as typeof serialized);
    applyAccountEvent(restored, { type: 'ReservationSettled', data: { reservationId: 'gen-open1', cost: '500000000', usage: createUsage(), overrun: '0', piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } }, AT);

    // 0.5 USD settled and the 2 USD reserve released, on every scope of the request, for the day and the month
    const expected = { settled: 500_000_000n, reserved: 0n };
    for (const counters of [restored.dayCounters, restored.monthCounters]) {
      expect(Object.fromEntries(counters)).to.deep.equal({
        'key:key_a': expected,
        'key:key_a:type:text': expected,
        'key:key_a:model:openai/gpt-4o-mini': expected,
        organization: expected,
        'employee:emp_a': expected,
        'team:team_a': expected,
      });
    }
  });
});
