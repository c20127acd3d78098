import { z } from 'zod';
import { pricingSchema } from '../catalog/catalog-schema.js';
import { defineEvent, EventCatalogue } from '../eventstore/event-catalogue.js';
import type { EventToAppend, RecordedEvent } from '../eventstore/event-store.js';
import type { PriceEvent } from './price-events.js';

/** The stored shape of the price events (version 1); see price-events.ts for their meaning. */
export const priceEventDefinitions = [
  defineEvent({
    type: 'ModelPriceSet',
    schemaVersion: 1,
    schema: z.strictObject({
      model: z.string().min(1),
      version: z.number().int().positive(),
      effectiveAt: z.iso.datetime(),
      source: z.enum(['catalog', 'admin']),
      pricing: pricingSchema,
    }),
  }),
] as const;

export const priceEventCatalogue = new EventCatalogue(priceEventDefinitions);

export function decodePriceEvent(recorded: RecordedEvent): PriceEvent {
  const event = priceEventCatalogue.decode(recorded);
  return { type: event.type, data: event.data } as PriceEvent;
}

export function priceEventToAppend(event: PriceEvent, envelope: { id: string; occurredAt: string; causedBy: string }): EventToAppend {
  return priceEventCatalogue.create(event.type, { ...envelope, data: event.data });
}
