import { expect } from 'chai';
import type { EventStore } from '../../src/eventstore/event-store.js';
import { decodeAccountEvent } from '../../src/ledger/account-event-catalogue.js';

/**
 * The balance equation, recomputed from the log alone (as finance would): for every account stream,
 * credits − settled cost = balance, and the open reservations add up to the reserved amount; every
 * reservation is closed at most once.
 */
export interface ReplayedAccount {
  credits: bigint;
  settled: bigint;
  balance: bigint;
  reserved: bigint;
  open: Map<string, bigint>;
  closed: Set<string>;
}

export async function replayAccounts(store: EventStore): Promise<Map<string, ReplayedAccount>> {
  const accounts = new Map<string, ReplayedAccount>();
  let from: Parameters<EventStore['readAll']>[0] extends infer O ? (O extends { from?: infer F } ? F : never) : never = 'start';
  for (;;) {
    const page = await store.readAll({ from, maxCount: 5_000 });
    for (const recorded of page) {
      if (!recorded.streamId.startsWith('account-')) continue;
      const orgId = recorded.streamId.slice('account-'.length);
      let account = accounts.get(orgId);
      if (!account) accounts.set(orgId, (account = { credits: 0n, settled: 0n, balance: 0n, reserved: 0n, open: new Map(), closed: new Set() }));
      const event = decodeAccountEvent(recorded);
      switch (event.type) {
        case 'CreditsAdded':
          account.credits += BigInt(event.data.amount);
          break;
        case 'FundsReserved':
          expect(account.open.has(event.data.reservationId) || account.closed.has(event.data.reservationId), `reserved twice: ${event.data.reservationId}`).to.equal(false);
          account.open.set(event.data.reservationId, BigInt(event.data.amount));
          break;
        case 'ReservationSettled':
        case 'ReservationCutOff':
        case 'ReservationReleased':
        case 'ReservationExpired': {
          const id = event.data.reservationId;
          expect(account.open.has(id), `closed without being open, or closed twice: ${id}`).to.equal(true);
          account.open.delete(id);
          account.closed.add(id);
          if (event.type === 'ReservationSettled' || event.type === 'ReservationCutOff') account.settled += BigInt(event.data.cost);
          break;
        }
        case 'AccessRulesChanged':
          break;
      }
    }
    if (page.length < 5_000) break;
    from = page[page.length - 1]!.position;
  }
  for (const account of accounts.values()) {
    account.balance = account.credits - account.settled;
    account.reserved = [...account.open.values()].reduce((sum, amount) => sum + amount, 0n);
  }
  return accounts;
}
