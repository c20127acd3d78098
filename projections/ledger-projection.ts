import { accountEventDefinitions } from '../src/ledger/account-event-catalogue.js';
import { defineProjection } from './projection.js';
import { createLedgerTables, endedInError, LEDGER_TABLES } from './ledger-tables.js';
import {
  addToBalances,
  addToMinutes,
  addToSpend,
  closeRequests,
  insertRequests,
  openRequestsClosedBy,
  type BalanceDelta,
  type MinuteCounts,
  type RequestRow,
} from './ledger-rows.js';

/**
 * The ledger's read models (tables: ledger-tables.ts), from the `account-…` streams: balances, the request
 * log, requests per minute and spend per day. A request's spend belongs to the day its money was reserved
 * (the same rule as the limits), and its count in requests_per_minute to the minute it was reserved, also
 * its error when it ends in one.
 *
 * Every request writes two events, so a busy gateway writes thousands a second: the batch is folded in
 * memory (sums per organization, per minute and per spend row, one row per request) and written with six
 * statements whatever its size (ledger-rows.ts).
 *
 * Version 2 added the request log's endpoint, release reason and event revisions, requests_per_minute and
 * the indexes the console's request log pages by; a generation of version 1 is rebuilt from the log.
 */
const CLOSED_STATUS = { ReservationSettled: 'settled', ReservationCutOff: 'cut_off', ReservationReleased: 'released', ReservationExpired: 'expired' } as const;

const minuteOf = (at: string) => `${new Date(at).toISOString().slice(0, 16)}:00.000Z`;

export const ledgerProjection = defineProjection({
  name: 'ledger',
  version: 2,
  handles: accountEventDefinitions,
  tables: LEDGER_TABLES,
  setup: createLedgerTables,
  async applyBatch(trx, events) {
    const earlier = await openRequestsClosedBy(trx, events);
    const opened = new Map<string, RequestRow>();
    const closedEarlier: RequestRow[] = [];
    const balances = new Map<string, BalanceDelta>();
    const spend = new Map<string, { row: RequestRow; cost: bigint; requests: number }>();
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
            reserved: data.amount,
            deadline: data.deadline,
            status: 'open',
            release_reason: null,
            cost: null,
            overrun: null,
            usage: null,
            reserved_at: at,
            closed_at: null,
            reserved_revision: String(event.revision),
            closed_revision: null,
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
          const cost = event.type === 'ReservationSettled' || event.type === 'ReservationCutOff' ? event.data.cost : '0';
          row.status = CLOSED_STATUS[event.type];
          row.release_reason = event.type === 'ReservationReleased' ? event.data.reason : null;
          row.cost = cost;
          row.overrun = event.type === 'ReservationSettled' ? event.data.overrun : '0';
          row.usage = event.type === 'ReservationSettled' || event.type === 'ReservationCutOff' ? JSON.stringify(event.data.usage) : null;
          row.closed_at = at;
          row.closed_revision = String(event.revision);
          if (!opened.has(id)) closedEarlier.push(row);
          if (endedInError(row.status, row.release_reason)) minuteCounts(row.minute).errors += 1;
          const balance = balanceOf(orgId, at);
          balance.settled += BigInt(cost);
          balance.reserved -= BigInt(row.reserved);
          const spendKey = JSON.stringify([orgId, row.day, row.key_id, row.employee_id ?? '', row.team_id ?? '', row.space_id ?? '', row.category, row.model]);
          const total = spend.get(spendKey) ?? { row, cost: 0n, requests: 0 };
          total.cost += BigInt(cost);
          total.requests += 1;
          spend.set(spendKey, total);
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
    await addToSpend(trx, [...spend.values()]);
  },
});

