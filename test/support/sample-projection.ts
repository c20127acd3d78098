import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { z } from 'zod';
import { nanodollarsText } from '../../src/eventstore/event-data.js';
import { defineEvent, EventCatalogue, upcastFrom } from '../../src/eventstore/event-catalogue.js';
import type { EventToAppend } from '../../src/eventstore/event-store.js';
import { defineProjection } from '../../projections/projection.js';

/**
 * A small read model for the projection tests only (real ones come with the ledger and access features):
 * balances per account and charges per model, from three event types, one of them with an upcaster.
 * Its updates add to counters, so an event applied twice, or skipped, shows in the numbers.
 */
export const SampleCreditsAdded = defineEvent({
  type: 'SampleCreditsAdded',
  schemaVersion: 2,
  schema: z.strictObject({ amount: nanodollarsText, source: z.string() }),
  upcasters: { 1: upcastFrom(z.strictObject({ amount: nanodollarsText }), (v1) => ({ ...v1, source: 'unknown' })) },
});
export const SampleUsageCharged = defineEvent({
  type: 'SampleUsageCharged',
  schemaVersion: 1,
  schema: z.strictObject({ amount: nanodollarsText, model: z.string() }),
});
/** Known to the catalogue, handled by no sample projection: runners step over it. */
export const SampleNoteAdded = defineEvent({ type: 'SampleNoteAdded', schemaVersion: 1, schema: z.strictObject({ text: z.string() }) });

export const sampleCatalogue = new EventCatalogue([SampleCreditsAdded, SampleUsageCharged, SampleNoteAdded]);

export const sampleBalancesProjection = defineProjection({
  name: 'sample_balances',
  version: 1,
  handles: [SampleCreditsAdded, SampleUsageCharged],
  tables: ['sample_balances', 'sample_usage_by_model'],
  async setup(trx) {
    await sql`create table sample_balances (
      account text primary key,
      credited numeric not null,
      charged numeric not null,
      events integer not null,
      last_source text not null
    )`.execute(trx);
    await sql`create table sample_usage_by_model (model text primary key, charged numeric not null, requests integer not null)`.execute(trx);
  },
  async apply(trx, event) {
    const account = event.streamId;
    switch (event.type) {
      case 'SampleCreditsAdded':
        await sql`insert into sample_balances as b (account, credited, charged, events, last_source)
          values (${account}, ${event.data.amount}::numeric, 0, 1, ${event.data.source})
          on conflict (account) do update set credited = b.credited + excluded.credited, events = b.events + 1, last_source = excluded.last_source`.execute(trx);
        return;
      case 'SampleUsageCharged':
        await sql`insert into sample_balances as b (account, credited, charged, events, last_source)
          values (${account}, 0, ${event.data.amount}::numeric, 1, '')
          on conflict (account) do update set charged = b.charged + excluded.charged, events = b.events + 1`.execute(trx);
        await sql`insert into sample_usage_by_model as m (model, charged, requests) values (${event.data.model}, ${event.data.amount}::numeric, 1)
          on conflict (model) do update set charged = m.charged + excluded.charged, requests = m.requests + 1`.execute(trx);
        return;
      default: {
        const unexpected: never = event;
        throw new Error(`unhandled ${(unexpected as { type: string }).type}`);
      }
    }
  },
});

const meta = (schemaVersion: number) => ({ schemaVersion, occurredAt: new Date().toISOString(), causedBy: 'system:test' });

export function creditsAdded(amount: bigint, source = 'top-up'): EventToAppend {
  return { id: randomUUID(), type: 'SampleCreditsAdded', data: { amount: amount.toString(), source }, metadata: meta(2) };
}
/** As an old writer stored it, before `source` existed. */
export function creditsAddedV1(amount: bigint): EventToAppend {
  return { id: randomUUID(), type: 'SampleCreditsAdded', data: { amount: amount.toString() }, metadata: meta(1) };
}
export function usageCharged(amount: bigint, model: string): EventToAppend {
  return { id: randomUUID(), type: 'SampleUsageCharged', data: { amount: amount.toString(), model }, metadata: meta(1) };
}
export function noteAdded(text: string): EventToAppend {
  return { id: randomUUID(), type: 'SampleNoteAdded', data: { text }, metadata: meta(1) };
}
