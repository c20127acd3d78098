import { z } from 'zod';
import { MODEL_CATEGORIES } from '../billing/categories.js';
import { defineEvent, EventCatalogue, upcastFrom } from '../eventstore/event-catalogue.js';
import { nanodollarsText } from '../eventstore/event-data.js';
import type { KeyEvent, OrganizationEvent } from './access-events.js';

/**
 * The stored shapes of the organization and key events; see access-events.ts for their meaning.
 *
 * Version 2 of `KeyIssued` and `KeyChanged` carries the key's spend controls (`maxConcurrentRequests`,
 * `maxCostPerRequest`): a key issued before them has neither (null). Version 2 of `OrganizationChanged` may
 * carry the organization's `maxConcurrentRequests`. A reader of version 1 refuses the new fields (its
 * schemas are strict), so every instance reading the log must know version 2 before one writes it.
 */
const limitPair = z.strictObject({ daily: nanodollarsText.nullable(), monthly: nanodollarsText.nullable() });
const keyLimits = z.strictObject({
  overall: limitPair,
  byType: z.partialRecord(z.enum(MODEL_CATEGORIES), limitPair),
  byModel: z.record(z.string(), limitPair),
});
const keySettingsV1 = {
  models: z.array(z.string()).nullable(),
  limits: keyLimits,
  rpm: z.number().int().positive(),
  tpm: z.number().int().positive(),
  expiresAt: z.string().nullable(),
};
const concurrencyCap = z.number().int().positive().nullable();
const keySettings = { ...keySettingsV1, maxConcurrentRequests: concurrencyCap, maxCostPerRequest: nanodollarsText.nullable() };
const keyIssuedV1 = {
  keyId: z.string(),
  orgId: z.string(),
  name: z.string().nullable(),
  employeeId: z.string().nullable(),
  // only the SHA-256 of the secret, never the secret
  secretHash: z.string().regex(/^[0-9a-f]{64}$/),
  secretHint: z.string(),
};
const organizationChangedV1 = z.strictObject({ status: z.enum(['active', 'blocked']).optional(), piiMasking: z.boolean().optional(), spendLimits: limitPair.optional() });
const budgetScope = z.enum(['organization', 'key', 'team', 'employee']);

export const accessEventDefinitions = [
  defineEvent({
    type: 'OrganizationCreated',
    schemaVersion: 1,
    schema: z.strictObject({ orgId: z.string(), name: z.string(), piiMasking: z.boolean(), spendLimits: limitPair }),
  }),
  defineEvent({
    type: 'OrganizationChanged',
    schemaVersion: 2,
    schema: organizationChangedV1.extend({ maxConcurrentRequests: concurrencyCap.optional() }),
    // version 1 changed no concurrency cap
    upcasters: { 1: upcastFrom(organizationChangedV1, (v1) => v1) },
  }),
  defineEvent({ type: 'TeamCreated', schemaVersion: 1, schema: z.strictObject({ teamId: z.string(), name: z.string(), spendLimits: limitPair }) }),
  defineEvent({
    type: 'EmployeeCreated',
    schemaVersion: 1,
    schema: z.strictObject({ employeeId: z.string(), name: z.string(), teamId: z.string().nullable(), spendLimits: limitPair }),
  }),
  defineEvent({ type: 'SpaceCreated', schemaVersion: 1, schema: z.strictObject({ spaceId: z.string(), name: z.string() }) }),
  defineEvent({
    type: 'BudgetAlertsChanged',
    schemaVersion: 1,
    schema: z.strictObject({
      limitPercentages: z.array(z.strictObject({ scope: budgetScope, id: z.string().nullable(), percents: z.array(z.number().int().min(1).max(100)) })),
      lowBalance: nanodollarsText.nullable(),
    }),
  }),
  defineEvent({
    type: 'AlertWebhookChanged',
    schemaVersion: 1,
    schema: z.strictObject({ webhook: z.strictObject({ url: z.string().min(1), secret: z.string().startsWith('whsec_') }).nullable() }),
  }),
  defineEvent({
    type: 'KeyIssued',
    schemaVersion: 2,
    schema: z.strictObject({ ...keyIssuedV1, ...keySettings }),
    // a key issued before the spend controls has none
    upcasters: { 1: upcastFrom(z.strictObject({ ...keyIssuedV1, ...keySettingsV1 }), (v1) => ({ ...v1, maxConcurrentRequests: null, maxCostPerRequest: null })) },
  }),
  defineEvent({
    type: 'KeyChanged',
    schemaVersion: 2,
    schema: z.strictObject(keySettings).partial(),
    upcasters: { 1: upcastFrom(z.strictObject(keySettingsV1).partial(), (v1) => v1) },
  }),
  defineEvent({ type: 'KeyRevoked', schemaVersion: 1, schema: z.strictObject({}) }),
] as const;

export const accessEventCatalogue = new EventCatalogue(accessEventDefinitions);

export function decodeAccessEvent(recorded: Parameters<typeof accessEventCatalogue.decode>[0]): OrganizationEvent | KeyEvent {
  const event = accessEventCatalogue.decode(recorded);
  return { type: event.type, data: event.data } as OrganizationEvent | KeyEvent;
}
