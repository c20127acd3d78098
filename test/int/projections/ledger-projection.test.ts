import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { ledgerProjection } from '../../../projections/ledger-projection.js';
import { ProjectionRunner } from '../../../projections/projection-runner.js';
import { eventCatalogue } from '../../../projections/registry.js';
import type { EventToAppend } from '../../../src/eventstore/event-store.js';
import { DATABASE_KINDS } from '../../support/databases.js';
import { dumpTable, openProjectionKit, resetDatabase, type ProjectionKit } from './projection-test-kit.js';

/**
 * The ledger read models fold each batch of account events into a few statements. The same log, read
 * one event per batch and all in one batch, must give the same rows, and those rows must be what the
 * events say, counted here one event at a time: requests closed in the batch that opened them and in a
 * later one, every way a reservation closes, closings of requests that are not open (ignored), spend on
 * the day of the reserve even when the request closes the next day, reserves from before and after the
 * endpoint was recorded, the revisions of each request's events, requests and errors per minute, and the
 * PII masking fee of masked requests (closing events of version 2) as spend of the type pii.
 */
interface ExpectedRequest {
  status: string;
  cost: bigint | null;
  piiFee: bigint | null;
  endpoint: string | null;
  release_reason: string | null;
  reserved_revision: string;
  closed_revision: string | null;
}

interface Expected {
  balances: Map<string, { credits: bigint; settled: bigint; reserved: bigint }>;
  requests: Map<string, ExpectedRequest>;
  spend: Map<string, { cost: bigint; requests: number }>;
  /** Per UTC minute of the reserve: requests, and those that ended in an error. */
  minutes: Map<string, { requests: number; errors: number }>;
}

interface Reservation {
  org: string;
  id: string;
  amount: bigint;
  keyId: string;
  spaceId: string | null;
  model: string;
  day: string;
  minute: string;
}

function buildLog(): { appends: Array<{ stream: string; events: EventToAppend[] }>; expected: Expected } {
  const expected: Expected = { balances: new Map(), requests: new Map(), spend: new Map(), minutes: new Map() };
  const appends: Array<{ stream: string; events: EventToAppend[] }> = [];
  const open = new Map<string, Reservation>();
  const balance = (org: string) => {
    let row = expected.balances.get(org);
    if (!row) expected.balances.set(org, (row = { credits: 0n, settled: 0n, reserved: 0n }));
    return row;
  };
  const minute = (key: string) => {
    let counts = expected.minutes.get(key);
    if (!counts) expected.minutes.set(key, (counts = { requests: 0, errors: 0 }));
    return counts;
  };
  /** The next revision of each stream: an event's revision is how many the stream held before it. */
  const revisions = new Map<string, number>();
  let stream = '';
  const revisionOf = new Map<string, string>();
  const event = (type: string, data: object, occurredAt: string, schemaVersion = 1): EventToAppend => {
    const revision = revisions.get(stream) ?? 0;
    revisions.set(stream, revision + 1);
    const appended = { id: randomUUID(), type, data, metadata: { schemaVersion, occurredAt, causedBy: 'system:test' } };
    revisionOf.set(appended.id, String(revision));
    return appended;
  };
  const addSpend = (reservation: Reservation, type: string, cost: bigint, requests: number) => {
    const spendKey = [reservation.org, reservation.day, reservation.keyId, reservation.spaceId ?? '', type, reservation.model].join('|');
    const spend = expected.spend.get(spendKey) ?? { cost: 0n, requests: 0 };
    spend.cost += cost;
    spend.requests += requests;
    expected.spend.set(spendKey, spend);
  };
  const close = (reservation: Reservation, kind: 'settle' | 'cut_off' | 'release' | 'expire', cost: bigint, at: string, reason = 'provider_error'): EventToAppend => {
    open.delete(reservation.id);
    const row = balance(reservation.org);
    row.reserved -= reservation.amount;
    row.settled += cost;
    const status = { settle: 'settled', cut_off: 'cut_off', release: 'released', expire: 'expired' }[kind];
    const release_reason = kind === 'release' ? reason : null;
    if (status === 'cut_off' || status === 'expired' || (status === 'released' && reason !== 'cancelled')) minute(reservation.minute).errors += 1;
    // every fifth request was masked: its charge holds a fee of 100,000 n$, spend of the type pii
    const masked = (kind === 'settle' || kind === 'cut_off') && Number(reservation.id.split('-').at(-1)) % 5 === 0;
    const piiFee = masked ? 100_000n : 0n;
    addSpend(reservation, 'text', cost - piiFee, 1);
    if (masked) addSpend(reservation, 'pii', piiFee, 0);
    const usage = { inputTokens: 10, outputTokens: Number(cost % 1000n), ...(masked ? { piiMaskedRequests: 1 } : {}) };
    const charge = { reservationId: reservation.id, cost: String(cost), usage, ...(masked ? { piiMaskingFee: String(piiFee) } : {}) };
    const data =
      kind === 'settle'
        ? { ...charge, overrun: cost > reservation.amount ? String(cost - reservation.amount) : '0' }
        : kind === 'cut_off'
          ? charge
          : kind === 'release'
            ? { reservationId: reservation.id, reason }
            : { reservationId: reservation.id };
    const type = { settle: 'ReservationSettled', cut_off: 'ReservationCutOff', release: 'ReservationReleased', expire: 'ReservationExpired' }[kind];
    // the log holds both versions: closings written before masking existed (1) and masked ones (2)
    const closing = event(type, data, at, masked ? 2 : 1);
    const reserved = expected.requests.get(reservation.id)!;
    expected.requests.set(reservation.id, { ...reserved, status, cost, piiFee, release_reason, closed_revision: revisionOf.get(closing.id)! });
    return closing;
  };

  let sequence = 0;
  for (let round = 0; round < 30; round++) {
    // The last rounds happen the next day: requests opened the day before still count for their own day.
    const at = round < 25 ? `2026-11-20T23:${String(round).padStart(2, '0')}:00.000Z` : `2026-11-21T00:0${round - 25}:00.000Z`;
    for (const org of ['org_a', 'org_b', 'org_c']) {
      stream = `account-${org}`;
      const events: EventToAppend[] = [];
      if (round % 10 === 0) {
        const amount = 5_000_000_000n + BigInt(round);
        events.push(event('CreditsAdded', { amount: String(amount), idempotencyKey: null }, at));
        balance(org).credits += amount;
      }
      for (let i = 0; i < 3; i++) {
        const id = `gen-${org}-${sequence++}`;
        const reservation: Reservation = {
          org,
          id,
          amount: 1_000_000n + BigInt(sequence),
          keyId: `key_${sequence % 2}`,
          spaceId: sequence % 3 === 0 ? 'space_x' : null,
          model: sequence % 4 === 0 ? 'anthropic/claude' : 'openai/gpt',
          day: at.slice(0, 10),
          minute: at,
        };
        const { keyId, spaceId, model, amount } = reservation;
        const v1 = { reservationId: id, keyId, employeeId: null, teamId: null, spaceId, model, category: 'text', amount: String(amount), deadline: at };
        // Reserves from before the endpoint was recorded (version 1) and after (version 2) in one log.
        const endpoint = round < 10 ? null : i === 1 ? 'messages' : 'chat';
        const reserved = endpoint === null ? event('FundsReserved', v1, at) : event('FundsReserved', { ...v1, endpoint }, at, 2);
        events.push(reserved);
        open.set(id, reservation);
        balance(org).reserved += amount;
        minute(at).requests += 1;
        expected.requests.set(id, { status: 'open', cost: null, piiFee: null, endpoint, release_reason: null, reserved_revision: revisionOf.get(reserved.id)!, closed_revision: null });
        // One of three closes in the append that opened it; the others stay open for a later round.
        if (i === 0) events.push(close(reservation, 'settle', 700_000n + BigInt(sequence), at));
      }
      // Close some that earlier rounds opened, each way a reservation can close.
      const older = [...open.values()].filter((reservation) => reservation.org === org && !events.some((e) => (e.data as { reservationId?: string }).reservationId === reservation.id));
      const kinds = ['settle', 'cut_off', 'release', 'expire'] as const;
      older.slice(0, 2).forEach((reservation, index) => {
        const kind = kinds[(round + index) % kinds.length]!;
        // An overrun now and then: a cost above the reserve.
        const cost = kind === 'settle' ? (round % 7 === 0 ? reservation.amount + 5n : 600_000n) : kind === 'cut_off' ? 123_456n : 0n;
        // A client that left is released too, but that is not an error of the request.
        const closing = close(reservation, kind, cost, at, round % 2 === 0 ? 'provider_error' : 'cancelled');
        events.push(closing);
        // A second closing of the same request changes nothing (the decider never writes one; a projection tolerates it).
        if (round === 7 && index === 0) events.push(event(closing.type, closing.data as object, at));
      });
      if (round === 3) events.push(event('ReservationExpired', { reservationId: 'gen-never-opened' }, at));
      if (round === 4) events.push(event('AccessRulesChanged', { stream: 'key-key_1', revision: '3' }, at));
      appends.push({ stream: `account-${org}`, events });
    }
  }
  return { appends, expected };
}

for (const kind of DATABASE_KINDS) {
  describe(`ledger projection on ${kind}`, function () {
    this.timeout(60_000);
    let kit: ProjectionKit;
    const { appends, expected } = buildLog();

    before(async () => {
      kit = await openProjectionKit(kind);
    });
    after(async () => {
      await kit.dispose();
    });

    async function project(batchSize: number): Promise<string> {
      await resetDatabase(kit.database);
      for (const view of ledgerProjection.tables) await sql`drop view if exists ${sql.id('public', view)}`.execute(kit.database.kysely);
      for (const { stream, events } of appends) await kit.store.append(stream, events, { expectedRevision: 'any' });
      const runner = new ProjectionRunner({ database: kit.database, store: kit.store, catalogue: eventCatalogue, projection: ledgerProjection, batchSize });
      await runner.start();
      await runner.caughtUp();
      await runner.stop();
      return (await Promise.all(ledgerProjection.tables.map((table) => dumpTable(kit.database, table)))).join('\n--\n');
    }

    it('gives the same rows whether a batch holds one event or all of them, and those rows are what the events say', async () => {
      const oneByOne = await project(1);
      const allAtOnce = await project(10_000);
      expect(allAtOnce).to.equal(oneByOne);

      const db = kit.database.kysely;
      const { rows: balances } = await sql<{ org_id: string; credits: string; settled: string; reserved: string; balance: string }>`
        select org_id, credits::text, settled::text, reserved::text, balance::text from balances order by org_id`.execute(db);
      expect(balances).to.deep.equal(
        [...expected.balances].sort(([a], [b]) => a.localeCompare(b)).map(([org, row]) => ({
          org_id: org,
          credits: String(row.credits),
          settled: String(row.settled),
          reserved: String(row.reserved),
          balance: String(row.credits - row.settled),
        })),
      );

      const { rows: requests } = await sql<ExpectedRequest & { request_id: string; cost: string | null; pii_fee: string | null }>`
        select request_id, status, cost::text, pii_fee::text, endpoint, release_reason, reserved_revision::text, closed_revision::text from requests`.execute(db);
      const amount = (value: string | null) => (value === null ? null : BigInt(value));
      expect(new Map(requests.map(({ request_id, cost, pii_fee, ...row }) => [request_id, { ...row, cost: amount(cost), piiFee: amount(pii_fee) }]))).to.deep.equal(expected.requests);
      expect([...expected.requests.values()].filter((request) => (request.piiFee ?? 0n) > 0n).length).to.be.greaterThan(0);
      expect(requests.filter((row) => row.status === 'open').length).to.be.greaterThan(0);
      expect(new Set(requests.map((row) => row.endpoint))).to.deep.equal(new Set([null, 'chat', 'messages']));
      expect(new Set(requests.map((row) => row.release_reason))).to.deep.equal(new Set([null, 'provider_error', 'cancelled']));

      const { rows: minutes } = await sql<{ minute: string; requests: string; errors: string }>`
        select to_char(minute at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"') as minute, requests::text, errors::text from requests_per_minute`.execute(db);
      expect(new Map(minutes.map((row) => [row.minute, { requests: Number(row.requests), errors: Number(row.errors) }]))).to.deep.equal(expected.minutes);
      expect([...expected.minutes.values()].some((counts) => counts.errors > 0)).to.equal(true);

      const { rows: spend } = await sql<{ org_id: string; day: string; key_id: string; space_id: string; category: string; model: string; cost: string; requests: string }>`
        select org_id, to_char(day, 'YYYY-MM-DD') as day, key_id, space_id, category, model, cost::text, requests::text from spend_daily`.execute(db);
      expect(new Map(spend.map((row) => [[row.org_id, row.day, row.key_id, row.space_id, row.category, row.model].join('|'), { cost: BigInt(row.cost), requests: Number(row.requests) }]))).to.deep.equal(
        expected.spend,
      );
      expect(new Set(spend.map((row) => row.day))).to.deep.equal(new Set(['2026-11-20', '2026-11-21']));
    });
  });
}
