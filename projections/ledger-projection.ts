import type { ModelCategory } from '../src/billing/categories.js';
import { accountEventDefinitions } from '../src/ledger/account-event-catalogue.js';
import { defineProjection } from './projection.js';
import { createLedgerTables, endedInError, LEDGER_TABLES } from './ledger-tables.js';
import {
  addSpend,
  addToBalances,
  addToMinutes,
  addToSpend,
  closeRequests,
  insertRequests,
  openRequestsClosedBy,
  type BalanceDelta,
  type MinuteCounts,
  type RequestRow,
  type SpendTotals,
} from './ledger-rows.js';

/**
 * The ledger's read models (tables: ledger-tables.ts), from the `account-…` streams: balances, the request
 * log, requests per minute and spend per day. A request's spend belongs to the day its money was reserved
 * (the same rule as the limits), and its count in requests_per_minute to the minute it was reserved, also
 * its error when it ends in one. The PII masking fee of a masked request is spend of its own type, `pii` (on
 * the request's key, space and model, counting no request of its own: the request is counted once, under
 * its model's type); the request's row keeps the fee in `pii_fee`, a part of its `cost`. A request's row
 * names the instance holding it (`held_by`): the open ones past their deadline are what the reservation
 * sweeper expires, and those held by a dead instance what its survivors close (overdue-reservations.ts).
 *
 * Every request writes two events, so a busy gateway writes thousands a second: the batch is folded in
 * memory (sums per organization, per minute and per spend row, one row per request) and written with six
 * statements whatever its size (ledger-rows.ts).
 *
 * Version 2 added the request log's endpoint, release reason and event revisions, requests_per_minute and
 * the indexes the console's request log pages by; version 3 the `pii` spend rows and `requests.pii_fee`;
 * version 4 the price version (and tier) of each request and spend row, the cost split by kind and the
 * instance holding each request (`held_by`). A
 * generation of an older version is rebuilt from the log.
 */
const CLOSED_STATUS = { ReservationSettled: 'settled', ReservationCutOff: 'cut_off', ReservationReleased: 'released', ReservationExpired: 'expired' } as const;

const minuteOf = (at: string) => `${new Date(at).toISOString().slice(0, 16)}:00.000Z`;

export const ledgerProjection = defineProjection({
  name: 'ledger',
  version: 4,
  handles: accountEventDefinitions,
  tables: LEDGER_TABLES,
  setup: createLedgerTables,
  async applyBatch(trx, events) {
    const earlier = await openRequestsClosedBy(trx, events);
    const opened = new Map<string, RequestRow>();
    const closedEarlier: RequestRow[] = [];
    const balances = new Map<string, BalanceDelta>();
    const spend: SpendTotals = new Map();
    const minutes = new Map<string, MinuteCounts>();
    const minuteCounts = (minute: string) => {
      let counts = minutes.get(minute);
      if (!counts) minutes.set(minute, (counts = { requests: 0, errors: 0 }));
      return counts;
    };
    const balanceOf = (orgId: string, at: string) => {
      let delta = balances.get(orgId);
      if (!delta) balances.set(orgId, (delta = { credits: 0n, settled: 0n, reserved: 0n, updatedAt: at }));
      delta.updatedAt = at;
      return delta;
    };

    for (const event of events) {
      const orgId = event.streamId.slice('account-'.length);
      const at = event.metadata.occurredAt;
      switch (event.type) {
        case 'CreditsAdded':
          balanceOf(orgId, at).credits += BigInt(event.data.amount);
          break;
        case 'FundsReserved': {
          const data = event.data;
          opened.set(data.reservationId, {
            request_id: data.reservationId,
            org_id: orgId,
            key_id: data.keyId,
            employee_id: data.employeeId,
            team_id: data.teamId,
            space_id: data.spaceId,
            endpoint: data.endpoint,
            model: data.model,
            category: data.category,
            price_version: data.priceVersion,
            service_tier: data.serviceTier,
            reserved: data.amount,
            deadline: data.deadline,
            status: 'open',
            release_reason: null,
            cost: null,
            overrun: null,
            pii_fee: null,
            cost_by_kind: null,
            usage: null,
            reserved_at: at,
            closed_at: null,
            reserved_revision: String(event.revision),
            closed_revision: null,
            held_by: data.heldBy,
            day: new Date(at).toISOString().slice(0, 10),
            minute: minuteOf(at),
          });
          minuteCounts(minuteOf(at)).requests += 1;
          balanceOf(orgId, at).reserved += BigInt(data.amount);
          break;
        }
        case 'ReservationSettled':
        case 'ReservationCutOff':
        case 'ReservationReleased':
        case 'ReservationExpired': {
          const id = event.data.reservationId;
          const row = opened.get(id) ?? earlier.get(id);
          // The account decider never closes twice; nothing to undo for a request that is not open.
          if (!row || row.org_id !== orgId || row.status !== 'open') break;
          const charged = event.type === 'ReservationSettled' || event.type === 'ReservationCutOff';
          const cost = charged ? event.data.cost : '0';
          const piiFee = charged ? BigInt(event.data.piiMaskingFee) : 0n;
          row.status = CLOSED_STATUS[event.type];
          row.release_reason = event.type === 'ReservationReleased' ? event.data.reason : null;
          row.cost = cost;
          row.overrun = event.type === 'ReservationSettled' ? event.data.overrun : '0';
          row.pii_fee = String(piiFee);
          row.usage = charged ? JSON.stringify(event.data.usage) : null;
          row.cost_by_kind = charged ? JSON.stringify(event.data.costByKind) : null;
          row.closed_at = at;
          row.closed_revision = String(event.revision);
          if (!opened.has(id)) closedEarlier.push(row);
          if (endedInError(row.status, row.release_reason)) minuteCounts(row.minute).errors += 1;
          const balance = balanceOf(orgId, at);
          balance.settled += BigInt(cost);
          balance.reserved -= BigInt(row.reserved);
          addSpend(spend, row, row.category as ModelCategory, BigInt(cost) - piiFee, 1, charged ? event.data.costByKind : {});
          if (piiFee > 0n) addSpend(spend, row, 'pii', piiFee, 0);
          break;
        }
        case 'AccessRulesChanged':
          break;
      }
    }

    await insertRequests(trx, [...opened.values()]);
    await closeRequests(trx, closedEarlier);
    await addToBalances(trx, balances);
    await addToMinutes(trx, minutes);
    await addToSpend(trx, spend);
  },
});

