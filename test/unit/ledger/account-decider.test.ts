import { expect } from 'chai';
import { NOT_ANSWERED, type AccountEvent, SpendOwner } from '../../../src/ledger/account-events.js';
import { decideAccount, type AccountCommand, type AccountDecision, type ReserveLimits } from '../../../src/ledger/account-decider.js';
import { applyAccountEvent, availableOf, balanceOf, emptyAccountState, type AccountState } from '../../../src/ledger/account-state.js';
import { parseUsd } from '../../../src/billing/money.js';
import { createUsage } from '../../../src/billing/usage.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const owner: SpendOwner = { keyId: 'key_a', employeeId: 'emp_a', teamId: 'team_a', spaceId: null };
const usd = parseUsd;

/** given: events that already happened (each at `at`, default NOW). */
function given(...events: Array<AccountEvent | [AccountEvent, string]>): AccountState {
  const state = emptyAccountState();
  for (const entry of events) {
    const [event, at] = Array.isArray(entry) ? entry : [entry, NOW.toISOString()];
    applyAccountEvent(state, event, at);
  }
  return state;
}
const credits = (amount: string): AccountEvent => ({ type: 'CreditsAdded', data: { amount: String(usd(amount)), idempotencyKey: null } });
const reserved = (id: string, amount: string, extra: Partial<SpendOwner> & { model?: string; category?: 'text' | 'image'; heldBy?: string | null } = {}): AccountEvent => ({
  type: 'FundsReserved',
  data: {
    reservationId: id,
    endpoint: 'chat',
    ...owner,
    ...extra,
    model: extra.model ?? 'openai/gpt-4o-mini',
    category: extra.category ?? 'text',
    amount: String(usd(amount)),
    priceVersion: null, serviceTier: null,
    deadline: new Date(NOW.getTime() + 600_000).toISOString(),
    heldBy: extra.heldBy ?? null,
  },
});
const settled = (id: string, cost: string): AccountEvent => ({ type: 'ReservationSettled', data: { reservationId: id, cost: String(usd(cost)), usage: createUsage(), overrun: '0', piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } });

function reserve(amount: string, limits: ReserveLimits = {}, extra: { model?: string; category?: 'text' | 'image'; id?: string } = {}): AccountCommand {
  return {
    type: 'ReserveFunds',
    reservationId: extra.id ?? 'gen-new',
    endpoint: 'chat',
    owner,
    model: extra.model ?? 'openai/gpt-4o-mini',
    category: extra.category ?? 'text',
    amount: usd(amount),
    price: { version: 1, serviceTier: null, ...NOT_ANSWERED }, deadline: new Date(NOW.getTime() + 600_000),
    limits,
    accessRevisions: { 'key-key_a': 3n, 'org-org_a': 1n },
  };
}

function rejection(decision: AccountDecision) {
  expect(decision, 'expected a rejection').to.have.property('rejection');
  const { rejection } = decision as { rejection: { code: string; message: string; status: number } };
  return rejection;
}
function events(decision: AccountDecision): AccountEvent[] {
  expect(decision, 'expected events').to.have.property('events');
  return (decision as { events: AccountEvent[] }).events;
}

describe('account decider', () => {
  describe('credits', () => {
    it('adds credits', () => {
      const decided = events(decideAccount(given(), { type: 'AddCredits', amount: usd('10') }, NOW));
      expect(decided).to.deep.equal([{ type: 'CreditsAdded', data: { amount: '10000000000', idempotencyKey: null } }]);
    });
    it('adds once for the same idempotency key', () => {
      const state = given({ type: 'CreditsAdded', data: { amount: '5', idempotencyKey: 'top-up-1' } });
      expect(events(decideAccount(state, { type: 'AddCredits', amount: 5n, idempotencyKey: 'top-up-1' }, NOW))).to.deep.equal([]);
      expect(events(decideAccount(state, { type: 'AddCredits', amount: 5n, idempotencyKey: 'top-up-2' }, NOW))).to.have.length(1);
    });
    it('refuses zero', () => {
      expect(rejection(decideAccount(given(), { type: 'AddCredits', amount: 0n }, NOW)).code).to.equal('invalid_request');
    });
  });

  describe('reserve against the balance', () => {
    it('reserves when the available balance covers the amount exactly', () => {
      const decided = events(decideAccount(given(credits('1')), reserve('1'), NOW));
      expect(decided[0]).to.deep.include({ type: 'FundsReserved' });
      expect(decided[0]!.data).to.include({ reservationId: 'gen-new', endpoint: 'chat', amount: '1000000000', keyId: 'key_a', employeeId: 'emp_a', teamId: 'team_a', model: 'openai/gpt-4o-mini', category: 'text' });
    });
    it('refuses with insufficient_funds and the exact message when it does not', () => {
      const refused = rejection(decideAccount(given(credits('1'), reserved('gen-1', '0.5')), reserve('0.6'), NOW));
      expect(refused).to.include({ code: 'insufficient_funds', status: 402, message: 'organization balance insufficient for this request' });
    });
    it('counts open reservations against the balance, and frees them on settle', () => {
      const state = given(credits('1'), reserved('gen-1', '0.8'));
      expect(availableOf(state)).to.equal(usd('0.2'));
      applyAccountEvent(state, settled('gen-1', '0.1'), NOW.toISOString());
      expect(balanceOf(state)).to.equal(usd('0.9'));
      expect(state.reserved).to.equal(0n);
      expect(events(decideAccount(state, reserve('0.9'), NOW))).to.have.length(1);
    });
    it('reserves nothing twice for the same request id', () => {
      expect(events(decideAccount(given(credits('1'), reserved('gen-new', '0.1')), reserve('0.1'), NOW))).to.deep.equal([]);
    });
  });

  describe('reserve against key limits', () => {
    const state = () => given(credits('100'), reserved('gen-1', '3'), settled('gen-1', '2'), reserved('gen-2', '1'));
    // The key has spent 2 and holds 1 open today: 3 counted.
    it('passes when settled + reserved + amount stays within the daily limit', () => {
      expect(events(decideAccount(state(), reserve('2'), NOW))).to.have.length(1);
      expect(events(decideAccount(state(), reserve('2', { key: { daily: usd('5') } }), NOW))).to.have.length(1);
    });
    it('refuses past the daily limit', () => {
      const refused = rejection(decideAccount(state(), reserve('2.01', { key: { daily: usd('5') } }), NOW));
      expect(refused).to.include({ code: 'key_limit_exceeded', status: 402, message: 'spending limit of this API key for the day is exceeded' });
    });
    it('refuses past the monthly limit', () => {
      expect(rejection(decideAccount(state(), reserve('1', { key: { monthly: usd('3.5') } }), NOW)).message).to.equal(
        'spending limit of this API key for the month is exceeded',
      );
    });
    it('names the type for a limit by type', () => {
      expect(rejection(decideAccount(state(), reserve('1', { keyByType: { daily: usd('3.5') } }), NOW)).message).to.equal(
        'spending limit of this API key for the day is exceeded for text generation',
      );
    });
    it('names the model for a limit by model, and counts only that model', () => {
      const other = reserve('1', { keyByModel: { daily: usd('1.5') } }, { model: 'anthropic/claude-sonnet-4-5' });
      expect(events(decideAccount(state(), other, NOW)), 'another model has spent nothing').to.have.length(1);
      expect(rejection(decideAccount(state(), reserve('1', { keyByModel: { daily: usd('3.5') } }), NOW)).message).to.equal(
        'spending limit of this API key for the day is exceeded for model openai/gpt-4o-mini',
      );
    });
    it('forgets yesterday for the daily limit but not for the monthly one', () => {
      const yesterday = '2026-11-20T23:59:00Z';
      const spentYesterday = given(credits('100'), [reserved('gen-1', '3'), yesterday], [settled('gen-1', '3'), yesterday]);
      expect(events(decideAccount(spentYesterday, reserve('4', { key: { daily: usd('4') } }), NOW))).to.have.length(1);
      expect(rejection(decideAccount(spentYesterday, reserve('4', { key: { monthly: usd('6') } }), NOW)).code).to.equal('key_limit_exceeded');
    });
    it('forgets last month for the monthly limit', () => {
      const lastMonth = '2026-10-31T23:00:00Z';
      const state = given(credits('100'), [reserved('gen-1', '3'), lastMonth], [settled('gen-1', '3'), lastMonth]);
      expect(events(decideAccount(state, reserve('4', { key: { monthly: usd('4') } }), NOW))).to.have.length(1);
    });
  });

  describe('reserve against employee, team and organization limits', () => {
    const state = () => given(credits('100'), reserved('gen-1', '2'), settled('gen-1', '2'));
    for (const scope of ['employee', 'team', 'organization'] as const) {
      for (const [period, limits] of [
        ['day', { daily: usd('3') }],
        ['month', { monthly: usd('3') }],
      ] as const) {
        it(`refuses past the ${scope} ${period} limit with spend_limit_exceeded`, () => {
          const refused = rejection(decideAccount(state(), reserve('1.5', { [scope]: limits }), NOW));
          expect(refused).to.include({ code: 'spend_limit_exceeded', status: 402, message: `spending limit of the ${scope} for the ${period} is exceeded` });
          expect(events(decideAccount(state(), reserve('1', { [scope]: limits }), NOW))).to.have.length(1);
        });
      }
    }
    it('checks the balance before any limit, and key limits before spend limits', () => {
      const poor = given(credits('1'));
      expect(rejection(decideAccount(poor, reserve('2', { key: { daily: 1n }, organization: { daily: 1n } }), NOW)).code).to.equal('insufficient_funds');
      expect(rejection(decideAccount(state(), reserve('2', { key: { daily: 1n }, organization: { daily: 1n } }), NOW)).code).to.equal('key_limit_exceeded');
    });
  });

  describe('access fence', () => {
    const fenced = (stream: string, revision: string): AccountEvent => ({ type: 'AccessRulesChanged', data: { stream, revision } });
    it('refuses as stale a reserve decided on an older revision of the key', () => {
      const decision = decideAccount(given(credits('10'), fenced('key-key_a', '4')), reserve('1'), NOW);
      expect(decision).to.deep.equal({ stale: [{ stream: 'key-key_a', revision: 4n }] });
    });
    it('lets through a reserve that has seen the fenced revision, or concerns another key', () => {
      expect(events(decideAccount(given(credits('10'), fenced('key-key_a', '3')), reserve('1'), NOW))).to.have.length(1);
      expect(events(decideAccount(given(credits('10'), fenced('key-key_b', '9')), reserve('1'), NOW))).to.have.length(1);
    });
    it('fences a revision once', () => {
      const state = given(fenced('key-key_a', '4'));
      expect(events(decideAccount(state, { type: 'FenceAccessRules', stream: 'key-key_a', revision: 4n }, NOW))).to.deep.equal([]);
      expect(events(decideAccount(state, { type: 'FenceAccessRules', stream: 'key-key_a', revision: 5n }, NOW))).to.have.length(1);
    });
  });

  describe('closing reservations', () => {
    const open = () => given(credits('10'), reserved('gen-1', '1'));
    it('settles with the real cost and no overrun when it is within the reserve', () => {
      expect(events(decideAccount(open(), { type: 'SettleReservation', reservationId: 'gen-1', cost: usd('0.25'), usage: createUsage({ inputTokens: 10, outputTokens: 5 }) }, NOW))).to.deep.equal([
        { type: 'ReservationSettled', data: { reservationId: 'gen-1', cost: '250000000', usage: createUsage({ inputTokens: 10, outputTokens: 5 }), overrun: '0', piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } },
      ]);
    });
    it('records who answered, the attempts and the price it was charged at, instead of the reservation\'s', () => {
      const answered = { model: 'local/llama', deployment: 'local/llama#0', attempts: 3, price: { of: 'local/llama', version: 2, serviceTier: null } };
      const [event] = events(decideAccount(open(), { type: 'SettleReservation', reservationId: 'gen-1', cost: 1_000n, usage: createUsage(), answered }, NOW));
      expect(event!.data).to.deep.include({ cost: '1000', priceVersion: 2, serviceTier: null, answeringModel: 'local/llama', deployment: 'local/llama#0', attempts: 3, pricedAs: 'local/llama' });
      const [cutOff] = events(decideAccount(open(), { type: 'CutOffReservation', reservationId: 'gen-1', cost: 0n, usage: createUsage(), answered }, NOW));
      expect(cutOff!.data).to.deep.include({ priceVersion: 2, answeringModel: 'local/llama', attempts: 3, pricedAs: 'local/llama' });
    });
    it('charges a cost above the reserve and records the overrun', () => {
      const [event] = events(decideAccount(open(), { type: 'SettleReservation', reservationId: 'gen-1', cost: usd('1.5'), usage: createUsage() }, NOW));
      expect(event!.data).to.include({ cost: '1500000000', overrun: '500000000' });
      const state = open();
      applyAccountEvent(state, event!, NOW.toISOString());
      expect(balanceOf(state)).to.equal(usd('8.5'));
    });
    it('closes each reservation exactly once', () => {
      const state = given(credits('10'), reserved('gen-1', '1'), settled('gen-1', '0.5'));
      for (const command of [
        { type: 'SettleReservation', reservationId: 'gen-1', cost: 1n, usage: createUsage() },
        { type: 'ReleaseReservation', reservationId: 'gen-1', reason: 'provider_error' },
        { type: 'CutOffReservation', reservationId: 'gen-1', cost: 1n, usage: createUsage() },
        { type: 'ExpireReservation', reservationId: 'gen-1' },
      ] as const) {
        expect(events(decideAccount(state, command, new Date('2030-01-01')))).to.deep.equal([]);
      }
    });
    it('releases in full', () => {
      const [event] = events(decideAccount(open(), { type: 'ReleaseReservation', reservationId: 'gen-1', reason: 'provider_error' }, NOW));
      const state = open();
      applyAccountEvent(state, event!, NOW.toISOString());
      expect([balanceOf(state), state.reserved]).to.deep.equal([usd('10'), 0n]);
    });
    it('cuts off a revoked key for what was received', () => {
      const [event] = events(decideAccount(open(), { type: 'CutOffReservation', reservationId: 'gen-1', cost: usd('0.1'), usage: createUsage({ outputTokens: 3 }) }, NOW));
      expect(event).to.deep.equal({ type: 'ReservationCutOff', data: { reservationId: 'gen-1', cost: '100000000', usage: createUsage({ outputTokens: 3 }), piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } });
    });
    it('expires only after the deadline', () => {
      expect(events(decideAccount(open(), { type: 'ExpireReservation', reservationId: 'gen-1' }, NOW))).to.deep.equal([]);
      const late = new Date(NOW.getTime() + 600_001);
      expect(events(decideAccount(open(), { type: 'ExpireReservation', reservationId: 'gen-1' }, late))).to.deep.equal([
        { type: 'ReservationExpired', data: { reservationId: 'gen-1', reason: 'deadline' } },
      ]);
    });
    it('expires before the deadline a reservation whose holding instance died, and only one it held', () => {
      const held = () => given(credits('10'), reserved('gen-1', '1', { heldBy: 'instance-a' }), reserved('gen-job', '1'));
      expect(events(decideAccount(held(), { type: 'ExpireReservation', reservationId: 'gen-1', holderLost: 'instance-a' }, NOW))).to.deep.equal([
        { type: 'ReservationExpired', data: { reservationId: 'gen-1', reason: 'holder_lost' } },
      ]);
      // another instance's reservation, and a video job's (held by no instance), are not that instance's to lose
      expect(events(decideAccount(held(), { type: 'ExpireReservation', reservationId: 'gen-1', holderLost: 'instance-b' }, NOW))).to.deep.equal([]);
      expect(events(decideAccount(held(), { type: 'ExpireReservation', reservationId: 'gen-job', holderLost: 'instance-a' }, NOW))).to.deep.equal([]);
      const [event] = events(decideAccount(held(), { type: 'ExpireReservation', reservationId: 'gen-1', holderLost: 'instance-a' }, NOW));
      const state = held();
      applyAccountEvent(state, event!, NOW.toISOString());
      expect([balanceOf(state), state.reserved], 'charged nothing, its reserve returned').to.deep.equal([usd('10'), usd('1')]);
    });
    it('names the instance holding a reservation, and none for a video job', () => {
      const [ofRequest] = events(decideAccount(given(credits('10')), { ...(reserve('1') as Extract<AccountCommand, { type: 'ReserveFunds' }>), heldBy: 'instance-a' }, NOW));
      const [ofJob] = events(decideAccount(given(credits('10')), reserve('1'), NOW));
      expect([(ofRequest as { data: { heldBy: unknown } }).data.heldBy, (ofJob as { data: { heldBy: unknown } }).data.heldBy]).to.deep.equal(['instance-a', null]);
    });
  });
});
