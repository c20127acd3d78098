import { expect } from 'chai';
import { CorruptEventError, eventMetadataSchema, isValidMetadata, parseStoredEnvelope } from '../../../src/eventstore/event-envelope.js';

/**
 * The envelope checks skip zod for envelopes that pass; they must never let through what zod refuses, and
 * should accept what it accepts. Each sample is judged by both.
 */
const valid = { schemaVersion: 1, occurredAt: '2026-11-25T10:00:00.000Z', causedBy: 'gen-abc123' };
const metadataSamples: Array<[string, unknown]> = [
  ['as appended', valid],
  ['an offset instead of Z', { ...valid, occurredAt: '2026-11-25T10:00:00+02:00' }],
  ['no fraction of a second', { ...valid, occurredAt: '2026-11-25T10:00:00Z' }],
  ['microseconds', { ...valid, occurredAt: '2026-11-25T10:00:00.123456Z' }],
  ['an admin', { ...valid, causedBy: 'admin:ops' }],
  ['a component', { ...valid, schemaVersion: 3, causedBy: 'system:sweeper' }],
  ['month 13', { ...valid, occurredAt: '2026-13-25T10:00:00Z' }],
  ['hour 24', { ...valid, occurredAt: '2026-11-25T24:00:00Z' }],
  ['no zone', { ...valid, occurredAt: '2026-11-25T10:00:00' }],
  ['no seconds', { ...valid, occurredAt: '2026-11-25T10:00Z' }],
  ['a date only', { ...valid, occurredAt: '2026-11-25' }],
  ['an offset of 24 hours', { ...valid, occurredAt: '2026-11-25T10:00:00+24:00' }],
  ['a number for the time', { ...valid, occurredAt: 1_764_064_800_000 }],
  ['version 0', { ...valid, schemaVersion: 0 }],
  ['version 1.5', { ...valid, schemaVersion: 1.5 }],
  ['version as text', { ...valid, schemaVersion: '1' }],
  ['version past the safe integers', { ...valid, schemaVersion: 2 ** 53 }],
  ['version NaN', { ...valid, schemaVersion: Number.NaN }],
  ['an unknown cause', { ...valid, causedBy: 'someone' }],
  ['a cause with a space', { ...valid, causedBy: 'admin:a b' }],
  ['a request id with a dash', { ...valid, causedBy: 'gen-abc-123' }],
  ['an extra key', { ...valid, traceId: 'x' }],
  ['a missing key', { schemaVersion: 1, occurredAt: valid.occurredAt }],
  ['a key set to undefined instead of missing', { ...valid, causedBy: undefined }],
  ['null', null],
  ['an array', [1, '2026-11-25T10:00:00Z', 'admin:ops']],
  ['text', 'metadata'],
];

describe('event envelope checks without zod', () => {
  for (const [name, metadata] of metadataSamples) {
    it(`metadata, ${name}: the same verdict as the schema`, () => {
      expect(isValidMetadata(metadata)).to.equal(eventMetadataSchema.safeParse(metadata).success);
    });
  }

  it('the samples hold both verdicts (six accepted, the rest refused)', () => {
    expect(metadataSamples.filter(([, metadata]) => isValidMetadata(metadata)).map(([name]) => name)).to.deep.equal([
      'as appended',
      'an offset instead of Z',
      'no fraction of a second',
      'microseconds',
      'an admin',
      'a component',
    ]);
  });

  const stored = { id: 'c5a1a4a2-54a4-4d5e-9d55-1a2b3c4d5e6f', type: 'FundsReserved', data: { reservationId: 'gen-abc123' }, metadata: valid };

  it('a stored envelope that passes comes back with its fields', () => {
    expect(parseStoredEnvelope(stored, 'account-org_1@0')).to.deep.equal(stored);
  });

  const corrupt: Array<[string, object, string]> = [
    ['an empty id', { ...stored, id: '' }, 'event account-org_1@7: id: '],
    ['a type in lower case', { ...stored, type: 'fundsReserved' }, 'event account-org_1@7: type: '],
    ['data that is an array', { ...stored, data: [1] }, 'event account-org_1@7: data: '],
    ['data that is null', { ...stored, data: null }, 'event account-org_1@7: data: '],
    ['metadata with an unknown cause', { ...stored, metadata: { ...valid, causedBy: 'someone' } }, 'event account-org_1@7: metadata.causedBy: '],
    ['metadata with an extra key', { ...stored, metadata: { ...valid, traceId: 'x' } }, 'event account-org_1@7: metadata: '],
  ];
  for (const [name, envelope, message] of corrupt) {
    it(`a stored envelope with ${name} is refused as corrupt, with where it is`, () => {
      expect(() => parseStoredEnvelope(envelope as never, 'account-org_1@7'))
        .to.throw(CorruptEventError)
        .with.property('message')
        .that.satisfy((text: string) => text.startsWith(message));
    });
  }
});
