import { expect } from 'chai';
import { balanceOfAccount, reservedOfAccount } from '../../src/audit/audit-fold.js';
import { replayLedger } from '../../src/audit/audit-replay.js';
import type { EventStore } from '../../src/eventstore/event-store.js';

/**
 * The balance equation, recomputed from the log alone by the finance audit's replay (src/audit): for
 * every account stream, credits − settled cost = balance, and the open reservations add up to the
 * reserved amount; every reservation is reserved once and closed at most once (the replay reports any
 * other history as an anomaly, which fails here).
 */
export interface ReplayedAccount {
  credits: bigint;
  settled: bigint;
  balance: bigint;
  reserved: bigint;
  /** Open reservations: id → amount. */
  open: Map<string, bigint>;
  /** How many reservations were closed (settled, cut off, released or expired). */
  closed: { size: number };
}

export async function replayAccounts(store: EventStore): Promise<Map<string, ReplayedAccount>> {
  const { head } = await replayLedger(store);
  expect(head.anomalies, 'reservations reserved twice, or closed without being open').to.deep.equal([]);
  const closedByOrg = new Map<string, number>();
  for (const row of head.rows.values()) closedByOrg.set(row.orgId, (closedByOrg.get(row.orgId) ?? 0) + row.requests);
  const accounts = new Map<string, ReplayedAccount>();
  for (const [orgId, account] of head.accounts) {
    accounts.set(orgId, {
      credits: account.credits,
      settled: account.settled,
      balance: balanceOfAccount(account),
      reserved: reservedOfAccount(account),
      open: new Map([...account.open].map(([id, request]) => [id, request.amount])),
      closed: { size: closedByOrg.get(orgId) ?? 0 },
    });
  }
  return accounts;
}
