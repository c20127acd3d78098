import { z } from 'zod';
import { MODEL_CATEGORIES } from '../billing/categories.js';
import { defineEvent, EventCatalogue } from '../eventstore/event-catalogue.js';
import { nanodollarsText } from '../eventstore/event-data.js';
import type { KeyEvent, OrganizationEvent } from './access-events.js';

/** The stored shapes of the organization and key events (version 1); see access-events.ts for their meaning. */
const limitPair = z.strictObject({ daily: nanodollarsText.nullable(), monthly: nanodollarsText.nullable() });
const keyLimits = z.strictObject({
  overall: limitPair,
  byType: z.partialRecord(z.enum(MODEL_CATEGORIES), limitPair),
  byModel: z.record(z.string(), limitPair),
});
const keySettings = {
  models: z.array(z.string()).nullable(),
  limits: keyLimits,
  rpm: z.number().int().positive(),
  tpm: z.number().int().positive(),
  expiresAt: z.string().nullable(),
};

export const accessEventDefinitions = [
  defineEvent({
    type: 'OrganizationCreated',
    schemaVersion: 1,
    schema: z.strictObject({ orgId: z.string(), name: z.string(), piiMasking: z.boolean(), spendLimits: limitPair }),
  }),
  defineEvent({
    type: 'OrganizationChanged',
    schemaVersion: 1,
    schema: z.strictObject({ status: z.enum(['active', 'blocked']).optional(), piiMasking: z.boolean().optional(), spendLimits: limitPair.optional() }),
  }),
  defineEvent({ type: 'TeamCreated', schemaVersion: 1, schema: z.strictObject({ teamId: z.string(), name: z.string(), spendLimits: limitPair }) }),
  defineEvent({
    type: 'EmployeeCreated',
    schemaVersion: 1,
    schema: z.strictObject({ employeeId: z.string(), name: z.string(), teamId: z.string().nullable(), spendLimits: limitPair }),
  }),
  defineEvent({ type: 'SpaceCreated', schemaVersion: 1, schema: z.strictObject({ spaceId: z.string(), name: z.string() }) }),
  defineEvent({
    type: 'KeyIssued',
    schemaVersion: 1,
    schema: z.strictObject({
      keyId: z.string(),
      orgId: z.string(),
      name: z.string().nullable(),
      employeeId: z.string().nullable(),
      // only the SHA-256 of the secret, never the secret
      secretHash: z.string().regex(/^[0-9a-f]{64}$/),
      secretHint: z.string(),
      ...keySettings,
    }),
  }),
  defineEvent({ type: 'KeyChanged', schemaVersion: 1, schema: z.strictObject(keySettings).partial() }),
  defineEvent({ type: 'KeyRevoked', schemaVersion: 1, schema: z.strictObject({}) }),
] as const;

export const accessEventCatalogue = new EventCatalogue(accessEventDefinitions);

export function decodeAccessEvent(recorded: Parameters<typeof accessEventCatalogue.decode>[0]): OrganizationEvent | KeyEvent {
  const event = accessEventCatalogue.decode(recorded);
  return { type: event.type, data: event.data } as OrganizationEvent | KeyEvent;
}
