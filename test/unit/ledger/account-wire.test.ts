import { expect } from 'chai';
import { createUsage } from '../../../src/billing/usage.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { AccountCommand } from '../../../src/ledger/account-decider.js';
import type { AccountOutcome } from '../../../src/ledger/accounts.js';
import { decodeCommand, decodeOutcome, encodeCommand, encodeOutcome, isForwarded, type ForwardedCommand } from '../../../src/ledger/owners/account-wire.js';

/** Through the wire as the link sends it: encoded, turned into JSON text and back, decoded. */
const overTheWire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('account commands and outcomes on the account link', () => {
  const commands: ForwardedCommand[] = [
    {
      type: 'ReserveFunds',
      reservationId: 'gen-abc',
      endpoint: 'messages',
      owner: { keyId: 'key_1', employeeId: 'emp_1', teamId: null, spaceId: 'space_1' },
      model: 'openai/gpt-4o-mini',
      category: 'text',
      // above 2^53: a number would lose the last digits
      amount: 9_007_199_254_740_993n,
      price: { version: 1, serviceTier: null }, deadline: new Date('2026-11-25T12:00:00.123Z'),
      limits: { key: { daily: 5_000_000_000n }, keyByModel: { monthly: 1n }, organization: { daily: 0n, monthly: 18_000_000_000_000_000_001n } },
      concurrency: { key: 5, organization: 40 },
      accessRevisions: { 'key-key_1': 7n, 'org-org_1': 0n },
    },
    { type: 'SettleReservation', reservationId: 'gen-abc', cost: 123_456_789n, usage: createUsage({ inputTokens: 10, outputTokens: 3 }) },
    { type: 'CutOffReservation', reservationId: 'gen-abc', cost: 0n, usage: createUsage({ outputTokens: 1, counted: true }) },
    { type: 'SettleReservation', reservationId: 'gen-masked', cost: 9_007_199_256_740_993n, usage: createUsage({ inputTokens: 1, piiMaskedRequests: 1 }), piiMaskingFee: 9_007_199_254_740_993n },
    { type: 'ReleaseReservation', reservationId: 'gen-abc', reason: 'provider_error' },
    { type: 'ExpireReservation', reservationId: 'gen-abc' },
    { type: 'FenceAccessRules', stream: 'key-key_1', revision: 12n },
  ];

  for (const command of commands) {
    it(`${command.type}${'piiMaskingFee' in command ? ' with a masking fee' : ''} arrives as it was sent`, () => {
      expect(decodeCommand(overTheWire(encodeCommand(command)))).to.deep.equal(command);
    });
  }

  it('a credit never travels: run twice after a lost answer, it would be added twice', () => {
    const credit: AccountCommand = { type: 'AddCredits', amount: 1n };
    expect(isForwarded(credit)).to.equal(false);
    expect(commands.every(isForwarded)).to.equal(true);
  });

  it('outcomes keep their events, balances, stale streams and refusals', () => {
    const outcomes: AccountOutcome[] = [
      { decision: { events: [{ type: 'ReservationReleased', data: { reservationId: 'gen-abc', reason: 'cancelled' } }] }, balance: 9_007_199_254_740_993n, reserved: 0n },
      { decision: { stale: [{ stream: 'key-key_1', revision: 9_007_199_254_740_993n }] }, balance: -5n, reserved: 3n },
    ];
    for (const outcome of outcomes) expect(decodeOutcome(overTheWire(encodeOutcome(outcome)))).to.deep.equal(outcome);

    const refused = decodeOutcome(
      overTheWire(encodeOutcome({ decision: { rejection: new GatewayError('key_limit_exceeded', 'spending limit of this API key for the day is exceeded') }, balance: 1n, reserved: 2n })),
    );
    if (!('rejection' in refused.decision)) throw new Error('expected a refusal');
    const { rejection } = refused.decision;
    expect(rejection).to.be.instanceOf(GatewayError);
    expect([rejection.code, rejection.status, rejection.type, rejection.message]).to.deep.equal([
      'key_limit_exceeded',
      402,
      'insufficient_quota_error',
      'spending limit of this API key for the day is exceeded',
    ]);
    expect([refused.balance, refused.reserved]).to.deep.equal([1n, 2n]);
  });

  it('a refusal keeps its Retry-After and the field at fault', () => {
    const error = new GatewayError('service_unavailable', 'try again', { retryAfterSeconds: 3, param: 'model' });
    const through = decodeOutcome(overTheWire(encodeOutcome({ decision: { rejection: error }, balance: 0n, reserved: 0n })));
    if (!('rejection' in through.decision)) throw new Error('expected a refusal');
    expect([through.decision.rejection.retryAfterSeconds, through.decision.rejection.param]).to.deep.equal([3, 'model']);
  });
});
