import { z } from 'zod';
import { MODEL_CATEGORIES } from '../billing/categories.js';
import { COST_KINDS } from '../billing/money.js';
import { createUsage, type Usage } from '../billing/usage.js';
import { defineEvent, EventCatalogue, upcastFrom } from '../eventstore/event-catalogue.js';
import { nanodollarsText } from '../eventstore/event-data.js';
import type { EventToAppend } from '../eventstore/event-store.js';
import { accountStreamId, NOT_ANSWERED, type AccountEvent } from './account-events.js';
import { deterministicUuid } from '../ids/deterministic-uuid.js';

/**
 * The stored shapes of the account events; see account-events.ts for their meaning. The stored usage is
 * the gateway's Usage without its `version` (the event's schema version says what its data means).
 *
 * `FundsReserved` is at version 2: it names the endpoint that reserved (version 1 reads as no endpoint),
 * the price it was made at (`priceVersion`, `serviceTier`; null before prices were versioned) and the
 * instance holding it (`heldBy`; null for a video job's, and before instances were named).
 * `ReservationExpired` is at version 2: it says why it expired (`reason`: its deadline passed, or its
 * holder was lost); version 1 reads as expired at its deadline, which is what it was.
 * Version 2 of the two events that carry usage (`ReservationSettled`, `ReservationCutOff`) records PII
 * masking: the usage's `piiMaskedRequests` and the part of the cost that is the masking fee,
 * `piiMaskingFee`, so the spend report and the audit can show the fee as its own type; and every token
 * kind a price reads (one-hour cache writes, audio input and output tokens), the charge split by kind
 * (`costByKind`) and the reservation's price (`priceVersion`, `serviceTier`). Version 1 was
 * written before masking existed: its upcaster says no request was masked and no fee was charged. A reader
 * of version 1 refuses the new fields (its schema is strict), so every instance reading the log must run a
 * version that knows version 2 before one writes it.
 * Version 3 of the same two events says who answered (deployments, retries and fallbacks): the answering
 * model, its deployment, the attempts made, and the price book entry the price version is of
 * (`pricedAs`); versions 1 and 2 read as answered by the reservation's model at its price, attempts
 * unknown (all null), which is what they were.
 */
const count = z.number().nonnegative().optional();
const usageV1 = z.strictObject({
  inputTokens: count,
  cachedInputTokens: count,
  cacheWriteTokens: count,
  outputTokens: count,
  reasoningTokens: count,
  images: count,
  audioSeconds: count,
  videoSeconds: count,
  counted: z.boolean().optional(),
});
const usage = usageV1.extend({ piiMaskedRequests: count, cacheWrite1hTokens: count, audioInputTokens: count, audioOutputTokens: count });
/** The price of a reserve (and of its close): null in events recorded before prices were versioned. */
const priceApplied = {
  priceVersion: z.number().int().positive().nullable().default(null),
  serviceTier: z.string().min(1).nullable().default(null),
};
const costByKind = z.partialRecord(z.enum(COST_KINDS), nanodollarsText).default({});
const reservationId = z.string().min(1);
/** Version 3: who answered; null in versions 1 and 2. */
const answeredBy = {
  answeringModel: z.string().min(1).nullable(),
  deployment: z.string().min(1).nullable(),
  attempts: z.number().int().positive().nullable(),
  pricedAs: z.string().min(1).nullable(),
};
const settledV1 = z.strictObject({ reservationId, cost: nanodollarsText, usage: usageV1, overrun: nanodollarsText });
const settledV2 = z.strictObject({ reservationId, cost: nanodollarsText, usage, overrun: nanodollarsText, piiMaskingFee: nanodollarsText, costByKind, ...priceApplied });
const cutOffV1 = z.strictObject({ reservationId, cost: nanodollarsText, usage: usageV1 });
const cutOffV2 = z.strictObject({ reservationId, cost: nanodollarsText, usage, piiMaskingFee: nanodollarsText, costByKind, ...priceApplied });
const v1Charge = { piiMaskingFee: '0', costByKind: {}, priceVersion: null, serviceTier: null };
const fundsReservedV1 = z.strictObject({
  reservationId,
  keyId: z.string(),
  employeeId: z.string().nullable(),
  teamId: z.string().nullable(),
  spaceId: z.string().nullable(),
  model: z.string(),
  category: z.enum(MODEL_CATEGORIES),
  amount: nanodollarsText,
  deadline: z.string(),
});

export const accountEventDefinitions = [
  defineEvent({
    type: 'CreditsAdded',
    schemaVersion: 1,
    schema: z.strictObject({ amount: nanodollarsText, idempotencyKey: z.string().nullable() }),
  }),
  defineEvent({
    type: 'FundsReserved',
    schemaVersion: 2,
    schema: fundsReservedV1.extend({ endpoint: z.string().min(1).nullable(), ...priceApplied, heldBy: z.string().min(1).nullable().default(null) }),
    // Version 1 did not say which endpoint reserved (its reserves show none in the request log), nor its price or holder.
    upcasters: { 1: upcastFrom(fundsReservedV1, (v1) => ({ ...v1, endpoint: null, priceVersion: null, serviceTier: null, heldBy: null })) },
  }),
  defineEvent({
    type: 'ReservationSettled',
    schemaVersion: 3,
    schema: settledV2.extend(answeredBy),
    upcasters: {
      1: upcastFrom(settledV1, (v1) => ({ ...v1, ...v1Charge })),
      2: upcastFrom(settledV2, (v2) => ({ ...v2, ...NOT_ANSWERED })),
    },
  }),
  defineEvent({
    type: 'ReservationReleased',
    schemaVersion: 1,
    schema: z.strictObject({ reservationId, reason: z.enum(['provider_error', 'client_error', 'cancelled', 'video_failed']) }),
  }),
  defineEvent({
    type: 'ReservationCutOff',
    schemaVersion: 3,
    schema: cutOffV2.extend(answeredBy),
    upcasters: {
      1: upcastFrom(cutOffV1, (v1) => ({ ...v1, ...v1Charge })),
      2: upcastFrom(cutOffV2, (v2) => ({ ...v2, ...NOT_ANSWERED })),
    },
  }),
  defineEvent({
    type: 'ReservationExpired',
    schemaVersion: 2,
    schema: z.strictObject({ reservationId, reason: z.enum(['deadline', 'holder_lost']) }),
    upcasters: { 1: upcastFrom(z.strictObject({ reservationId }), (v1) => ({ ...v1, reason: 'deadline' })) },
  }),
  defineEvent({
    type: 'AccessRulesChanged',
    schemaVersion: 1,
    schema: z.strictObject({ stream: z.string().min(1), revision: z.string().regex(/^\d+$/) }),
  }),
] as const;

export const accountEventCatalogue = new EventCatalogue(accountEventDefinitions);

type StoredUsage = z.output<typeof usage>;

/**
 * The decoded event as the decider's union (the schemas above and account-events.ts describe the same
 * shapes, but for usage, which becomes the gateway's Usage).
 */
export function decodeAccountEvent(recorded: Parameters<typeof accountEventCatalogue.decode>[0]): AccountEvent {
  const event = accountEventCatalogue.decode(recorded);
  if (event.type === 'ReservationSettled' || event.type === 'ReservationCutOff') {
    return { type: event.type, data: { ...event.data, usage: createUsage(event.data.usage) } } as AccountEvent;
  }
  return { type: event.type, data: event.data } as AccountEvent;
}

/** Event ids derived from what the event is about make a retried append a no-op at the store. */
export function accountEventEnvelope(orgId: string, event: AccountEvent, occurredAt: string, causedBy: string): EventToAppend {
  const subject =
    event.type === 'CreditsAdded'
      ? event.data.idempotencyKey ?? `${causedBy}:${occurredAt}`
      : event.type === 'AccessRulesChanged'
        ? `${event.data.stream}:${event.data.revision}`
        : event.data.reservationId;
  return accountEventToAppend(event, { id: deterministicUuid(`${accountStreamId(orgId)}:${event.type}:${subject}`), occurredAt, causedBy });
}

/** The event as the log stores it: its data in the stored shape, of its definition's schema version. */
export function accountEventToAppend(event: AccountEvent, envelope: { id: string; occurredAt: string; causedBy: string }): EventToAppend {
  const data = event.type === 'ReservationSettled' || event.type === 'ReservationCutOff' ? { ...event.data, usage: storedUsage(event.data.usage) } : event.data;
  return accountEventCatalogue.create(event.type, { ...envelope, data });
}

function storedUsage(value: Usage): StoredUsage {
  const { version: _version, ...counts } = createUsage(value);
  return counts;
}
