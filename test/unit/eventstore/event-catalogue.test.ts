import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { nanodollarsText, textToNanodollars } from '../../../src/eventstore/event-data.js';
import {
  defineEvent,
  EventCatalogue,
  EventDecodeError,
  UnknownEventTypeError,
  upcastFrom,
  type EventOf,
} from '../../../src/eventstore/event-catalogue.js';
import type { GlobalPosition, RecordedEvent } from '../../../src/eventstore/event-store.js';

const CreditsAdded = defineEvent({
  type: 'CreditsAdded',
  schemaVersion: 3,
  schema: z.strictObject({ amount: nanodollarsText, reason: z.string(), addedBy: z.string() }),
  upcasters: {
    1: upcastFrom(z.strictObject({ amountUsd: z.string() }), (v1) => ({ amount: `${v1.amountUsd}000000000`, reason: 'unspecified' })),
    2: upcastFrom(z.strictObject({ amount: nanodollarsText, reason: z.string() }), (v2) => ({ ...v2, addedBy: 'unknown' })),
  },
});
const KeyRevoked = defineEvent({ type: 'KeyRevoked', schemaVersion: 1, schema: z.strictObject({ keyId: z.string() }) });
const catalogue = new EventCatalogue([CreditsAdded, KeyRevoked]);

function stored(type: string, schemaVersion: number, data: unknown): RecordedEvent {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { schemaVersion, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'admin:ops' },
    streamId: 'account-org_1',
    revision: 4n,
    position: 'p' as GlobalPosition,
    recordedAt: new Date(),
  };
}

describe('event catalogue', () => {
  it('creates events of the current version with their metadata', () => {
    const event = CreditsAdded.create({
      id: randomUUID(),
      data: { amount: '5000000000', reason: 'top-up', addedBy: 'admin:ops' },
      occurredAt: '2026-11-21T10:00:00.000Z',
      causedBy: 'admin:ops',
    });
    expect(event.type).to.equal('CreditsAdded');
    expect(event.metadata).to.deep.equal({ schemaVersion: 3, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'admin:ops' });
  });

  it('creates events by type through their definition, and refuses a type it does not know', () => {
    const event = catalogue.create('KeyRevoked', { id: randomUUID(), data: { keyId: 'key_1' }, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'admin:ops' });
    expect(event).to.deep.include({ type: 'KeyRevoked', data: { keyId: 'key_1' } });
    expect(event.metadata.schemaVersion).to.equal(1);
    expect(() => catalogue.create('KeyRevoked', { id: randomUUID(), data: {}, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'admin:ops' })).to.throw(EventDecodeError);
    expect(() => catalogue.create('KeyLost', { id: randomUUID(), data: {}, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'admin:ops' })).to.throw(UnknownEventTypeError);
  });

  it('refuses to create an event whose data does not fit its schema', () => {
    expect(() =>
      CreditsAdded.create({ id: randomUUID(), data: { amount: '1.5', reason: 'x', addedBy: 'y' }, occurredAt: '2026-11-21T10:00:00.000Z', causedBy: 'admin:ops' }),
    ).to.throw(EventDecodeError, /integer nanodollars/);
  });

  it('decodes the current version as stored, typed by its type', () => {
    const event = catalogue.decode(stored('CreditsAdded', 3, { amount: '7', reason: 'r', addedBy: 'a' }));
    const amount = (decoded: EventOf<typeof CreditsAdded>) => textToNanodollars(decoded.data.amount);
    if (event.type !== 'CreditsAdded') throw new Error('wrong type');
    expect(amount(event)).to.equal(7n);
  });

  it('upcasts every older version through each step to the current shape', () => {
    expect(catalogue.decode(stored('CreditsAdded', 1, { amountUsd: '2' })).data).to.deep.equal({
      amount: '2000000000',
      reason: 'unspecified',
      addedBy: 'unknown',
    });
    expect(catalogue.decode(stored('CreditsAdded', 2, { amount: '9', reason: 'r' })).data).to.deep.equal({ amount: '9', reason: 'r', addedBy: 'unknown' });
  });

  it('reports an unknown event type instead of dropping it', () => {
    expect(() => catalogue.decode(stored('FundsTeleported', 1, {}))).to.throw(UnknownEventTypeError, /FundsTeleported \(account-org_1@4\)/);
  });

  it('reports a version newer than this build knows, and data that fits no schema', () => {
    expect(() => catalogue.decode(stored('KeyRevoked', 2, { keyId: 'k' }))).to.throw(EventDecodeError, /version 2 is unknown/);
    expect(() => catalogue.decode(stored('CreditsAdded', 2, { amount: 'lots', reason: 'r' }))).to.throw(EventDecodeError, /CreditsAdded v2/);
    expect(() => catalogue.decode(stored('KeyRevoked', 1, { keyId: 5 }))).to.throw(EventDecodeError, /keyId/);
  });

  it('refuses definitions with missing upcasters and duplicate types', () => {
    expect(() => defineEvent({ type: 'KeyIssued', schemaVersion: 2, schema: z.object({}) })).to.throw(TypeError, /upcaster/);
    expect(() => new EventCatalogue([KeyRevoked, KeyRevoked])).to.throw(TypeError, /twice/);
  });
});
