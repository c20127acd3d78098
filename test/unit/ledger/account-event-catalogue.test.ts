import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createUsage } from '../../../src/billing/usage.js';
import type { GlobalPosition, RecordedEvent } from '../../../src/eventstore/event-store.js';
import { accountEventDefinitions, accountEventToAppend, decodeAccountEvent } from '../../../src/ledger/account-event-catalogue.js';
import { NOT_ANSWERED, type AccountEvent } from '../../../src/ledger/account-events.js';

function recorded(type: string, data: unknown, schemaVersion = 1): RecordedEvent {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { schemaVersion, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'gen-1' },
    streamId: 'account-org_1',
    revision: 7n,
    position: 'p' as GlobalPosition,
    recordedAt: new Date(),
  };
}

const envelope = { id: randomUUID(), occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'gen-1' };
const storedAccountEventData = (event: AccountEvent) => accountEventToAppend(event, envelope).data;

describe('account event catalogue', () => {
  const settled: AccountEvent = {
    type: 'ReservationSettled',
    data: { reservationId: 'gen-1', cost: '250', usage: createUsage({ inputTokens: 10, outputTokens: 5, counted: true }), overrun: '0', piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED },
  };

  it('stores usage without its in-memory version, and reads it back as the current Usage', () => {
    const data = storedAccountEventData(settled);
    expect(data).to.deep.equal({
      reservationId: 'gen-1',
      cost: '250',
      usage: { inputTokens: 10, outputTokens: 5, counted: true },
      overrun: '0',
      piiMaskingFee: '0',
      costByKind: {},
      priceVersion: null,
      serviceTier: null,
      ...NOT_ANSWERED,
    });
    expect(decodeAccountEvent(recorded('ReservationSettled', data, 3))).to.deep.equal(settled);
  });

  it('reads the usage of events already in the log, zeros and all, as it was written', () => {
    const usage = { inputTokens: 20, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 7, reasoningTokens: 0 };
    const event = decodeAccountEvent(recorded('ReservationCutOff', { reservationId: 'gen-2', cost: '90', usage }));
    expect(event).to.deep.equal({ type: 'ReservationCutOff', data: { reservationId: 'gen-2', cost: '90', usage: { version: 2, ...usage }, piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } });
  });

  it('records a masked request: version 2 (and 3) stores the masking in the usage and the fee apart', () => {
    const masked: AccountEvent = {
      type: 'ReservationSettled',
      data: { reservationId: 'gen-4', cost: '1000250', usage: createUsage({ inputTokens: 10, outputTokens: 5, piiMaskedRequests: 1 }), overrun: '0', piiMaskingFee: '1000000' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED },
    };
    const appended = accountEventToAppend(masked, envelope);
    expect(appended.metadata.schemaVersion).to.equal(3);
    expect(appended.data).to.deep.include({ usage: { inputTokens: 10, outputTokens: 5, piiMaskedRequests: 1 }, piiMaskingFee: '1000000' });
    expect(decodeAccountEvent(recorded('ReservationSettled', appended.data, 3))).to.deep.equal(masked);
  });

  it('reads version 1 (written before masking existed) as a request not masked, and refuses masking data under version 1', () => {
    const v1 = { reservationId: 'gen-5', cost: '250', usage: { inputTokens: 10 }, overrun: '0' };
    expect(decodeAccountEvent(recorded('ReservationSettled', v1)).data).to.deep.include({ piiMaskingFee: '0' });
    expect(() => decodeAccountEvent(recorded('ReservationSettled', { ...v1, usage: { inputTokens: 10, piiMaskedRequests: 1 } }))).to.throw(/ReservationSettled v1/);
    expect(() => decodeAccountEvent(recorded('ReservationSettled', { ...v1 }, 2))).to.throw(/ReservationSettled v2.*piiMaskingFee/);
  });

  it('reads version 2 of a settle and a cut-off (before deployments) as answered by the reserved model at its price, attempts unsaid', () => {
    const v2 = { reservationId: 'gen-6', cost: '250', usage: { inputTokens: 10 }, overrun: '0', piiMaskingFee: '0', costByKind: { input: '250' }, priceVersion: 1, serviceTier: null };
    expect(decodeAccountEvent(recorded('ReservationSettled', v2, 2)).data).to.deep.include({ priceVersion: 1, answeringModel: null, deployment: null, attempts: null, pricedAs: null });
    const { overrun: _overrun, ...cutOffV2 } = v2;
    expect(decodeAccountEvent(recorded('ReservationCutOff', cutOffV2, 2)).data).to.deep.include({ cost: '250', answeringModel: null, pricedAs: null });
    // version 2 knew nothing of who answered: its strict schema refuses the fields
    expect(() => decodeAccountEvent(recorded('ReservationSettled', { ...v2, attempts: 2 }, 2))).to.throw(/ReservationSettled v2/);
  });

  it('writes who answered as version 3 and reads it back', () => {
    const answered: AccountEvent = {
      type: 'ReservationSettled',
      data: { reservationId: 'gen-7', cost: '9000', usage: createUsage({ inputTokens: 12, outputTokens: 7 }), overrun: '0', piiMaskingFee: '0', costByKind: {}, priceVersion: 2, serviceTier: null, answeringModel: 'local/llama', deployment: 'local/llama#0', attempts: 3, pricedAs: 'local/llama' },
    };
    const appended = accountEventToAppend(answered, envelope);
    expect(appended.metadata.schemaVersion).to.equal(3);
    expect(decodeAccountEvent(recorded('ReservationSettled', appended.data, 3)).data).to.deep.include({ answeringModel: 'local/llama', deployment: 'local/llama#0', attempts: 3, pricedAs: 'local/llama' });
  });

  it('stores every count a price reads: audio tokens and one-hour cache writes too', () => {
    const transcription: AccountEvent = {
      type: 'ReservationSettled',
      data: { reservationId: 'gen-3', cost: '1', usage: createUsage({ inputTokens: 14, audioInputTokens: 14, outputTokens: 3 }), overrun: '0', piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED },
    };
    expect(storedAccountEventData(transcription)).to.deep.include({ usage: { inputTokens: 14, audioInputTokens: 14, outputTokens: 3 } });
    const cached: AccountEvent = { ...transcription, data: { ...transcription.data, usage: createUsage({ inputTokens: 9, cacheWriteTokens: 5, cacheWrite1hTokens: 2, outputTokens: 4, audioOutputTokens: 1 }) } };
    expect(storedAccountEventData(cached)).to.deep.include({ usage: { inputTokens: 9, cacheWriteTokens: 5, cacheWrite1hTokens: 2, outputTokens: 4, audioOutputTokens: 1 } });
  });

  it('reads a reservation of version 1 as held by no named instance, and an expiry of version 1 as one at the deadline', () => {
    const v1 = { reservationId: 'gen-4', keyId: 'key_1', employeeId: null, teamId: null, spaceId: null, model: 'm', category: 'text', amount: '10', deadline: '2026-11-21T10:10:00.000Z' };
    expect(decodeAccountEvent(recorded('FundsReserved', v1))).to.deep.equal({ type: 'FundsReserved', data: { ...v1, endpoint: null, priceVersion: null, serviceTier: null, heldBy: null } });
    expect(decodeAccountEvent(recorded('ReservationExpired', { reservationId: 'gen-4' }))).to.deep.equal({ type: 'ReservationExpired', data: { reservationId: 'gen-4', reason: 'deadline' } });
  });

  it('writes version 2 of a reservation with the instance holding it, and of an expiry with its reason', () => {
    const reserved: AccountEvent = {
      type: 'FundsReserved',
      data: { reservationId: 'gen-5', endpoint: 'chat', keyId: 'key_1', employeeId: null, teamId: null, spaceId: null, model: 'm', category: 'text', amount: '10', priceVersion: 1, serviceTier: null, deadline: '2026-11-21T10:10:00.000Z', heldBy: 'instance-a' },
    };
    const expired: AccountEvent = { type: 'ReservationExpired', data: { reservationId: 'gen-5', reason: 'holder_lost' } };
    for (const event of [reserved, expired]) {
      const stored = accountEventToAppend(event, envelope);
      expect(stored.metadata.schemaVersion).to.equal(2);
      expect(decodeAccountEvent({ ...recorded(event.type, stored.data), metadata: stored.metadata })).to.deep.equal(event);
    }
  });

  it('stores the other events as they are', () => {
    const credits: AccountEvent = { type: 'CreditsAdded', data: { amount: '5', idempotencyKey: null } };
    expect(storedAccountEventData(credits)).to.deep.equal(credits.data);
  });

  it('writes each event with the schema version of its definition, and checks its data against the schema', () => {
    const event = accountEventToAppend(settled, envelope);
    const definition = accountEventDefinitions.find((candidate) => candidate.type === 'ReservationSettled')!;
    expect(event.metadata).to.deep.equal({ schemaVersion: definition.schemaVersion, occurredAt: envelope.occurredAt, causedBy: 'gen-1' });
    const broken = { type: 'CreditsAdded', data: { amount: '5 USD', idempotencyKey: null } } as AccountEvent;
    expect(() => accountEventToAppend(broken, envelope)).to.throw(/CreditsAdded v1 \(create\): amount/);
  });

  describe('FundsReserved', () => {
    const v1 = { reservationId: 'gen-4', keyId: 'key_1', employeeId: null, teamId: null, spaceId: null, model: 'openai/gpt-4o-mini', category: 'text', amount: '61650', deadline: '2026-11-21T10:11:00.000Z' };

    it('names the endpoint that reserved, at version 2', () => {
      const reserved: AccountEvent = { type: 'FundsReserved', data: { ...v1, category: 'text', endpoint: 'messages', priceVersion: 3, serviceTier: 'priority', heldBy: null } };
      const event = accountEventToAppend(reserved, envelope);
      expect(event.metadata.schemaVersion).to.equal(2);
      expect(event.data).to.deep.include({ endpoint: 'messages' });
      expect(decodeAccountEvent(recorded('FundsReserved', event.data, 2))).to.deep.equal(reserved);
    });

    it('reads a reserve of version 1, written before the endpoint was recorded, with no endpoint', () => {
      expect(decodeAccountEvent(recorded('FundsReserved', v1, 1))).to.deep.equal({ type: 'FundsReserved', data: { ...v1, endpoint: null, priceVersion: null, serviceTier: null, heldBy: null } });
    });

    it('reads a reserve recorded before prices were versioned with no price, and a settle of then with no split', () => {
      const reserve = decodeAccountEvent(recorded('FundsReserved', { ...v1, endpoint: 'chat' }, 2));
      expect(reserve.data).to.deep.include({ priceVersion: null, serviceTier: null });
      const settle = decodeAccountEvent(recorded('ReservationSettled', { reservationId: 'gen-4', cost: '9', usage: { inputTokens: 1 }, overrun: '0', piiMaskingFee: '0' }, 2));
      expect(settle.data).to.deep.include({ costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED });
    });

    it('refuses an endpoint in version 1 and a missing one in version 2: each version is its own shape', () => {
      expect(() => decodeAccountEvent(recorded('FundsReserved', { ...v1, endpoint: 'chat' }, 1))).to.throw(/FundsReserved v1/);
      expect(() => decodeAccountEvent(recorded('FundsReserved', v1, 2))).to.throw(/FundsReserved v2 .*endpoint/);
    });
  });
});
