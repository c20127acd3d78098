/**
 * `npm run bench:audit [-- EVENTS]`: how long the finance audit takes to replay a long log. Writes EVENTS
 * account events (default 1,000,000) through the EventStore port into a throw-away Postgres database —
 * 1,000 organizations, each a credit and then reserve/settle pairs — and times `replayLedger` over the
 * whole log twice: as the report runs it, and as `verify` runs it (with the account decider's own state).
 * The figures it folds are checked against what was written.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { replayLedger } from '../../src/audit/audit-replay.js';
import { balanceOfAccount } from '../../src/audit/audit-fold.js';
import { createUsage } from '../../src/billing/usage.js';
import { migrateToLatest, openPostgres } from '../../src/db/database.js';
import { PostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store.js';
import type { EventToAppend } from '../../src/eventstore/event-store.js';
import { accountEventToAppend } from '../../src/ledger/account-event-catalogue.js';
import { NOT_ANSWERED, type AccountEvent } from '../../src/ledger/account-events.js';
import { withBenchDatabase } from './lib/bench-database.js';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const ORGANIZATIONS = 1_000;
const BATCH = 1_000;
const CREDIT = 1_000_000_000_000n; // $1,000 an organization
const RESERVE = 50_000n;
const COST = 12_345n;

await withBenchDatabase('audit', async (url) => {
  const database = await openPostgres({ url, poolSize: 4, applicationName: 'gateway-audit-bench' });
  try {
    await migrateToLatest(database);
    const store = new PostgresEventStore(database);
    const perOrganization = Math.floor(EVENTS / ORGANIZATIONS);
    const pairs = Math.ceil((perOrganization - 1) / 2);
    const occurredAt = new Date().toISOString();
    const envelope = (causedBy: string) => ({ id: randomUUID(), occurredAt, causedBy });

    const writeStarted = performance.now();
    let written = 0;
    for (let org = 0; org < ORGANIZATIONS; org++) {
      const orgId = `org_bench${String(org).padStart(5, '0')}`;
      const events: EventToAppend[] = [accountEventToAppend({ type: 'CreditsAdded', data: { amount: String(CREDIT), idempotencyKey: null } }, envelope('admin:bench'))];
      for (let pair = 0; pair < pairs; pair++) {
        const reservationId = `gen-b${org}x${pair}`;
        const reserved: AccountEvent = {
          type: 'FundsReserved',
          data: { reservationId, endpoint: 'chat', keyId: 'key_bench', employeeId: null, teamId: null, spaceId: null, model: 'openai/gpt-4o-mini', category: 'text', amount: String(RESERVE), priceVersion: null, serviceTier: null, deadline: occurredAt, heldBy: null },
        };
        const settled: AccountEvent = { type: 'ReservationSettled', data: { reservationId, cost: String(COST), usage: createUsage({ inputTokens: 30, outputTokens: 13 }), overrun: '0', piiMaskingFee: '0' , costByKind: {}, priceVersion: null, serviceTier: null, ...NOT_ANSWERED } };
        events.push(accountEventToAppend(reserved, envelope(reservationId)), accountEventToAppend(settled, envelope(reservationId)));
      }
      let revision: bigint | 'no_stream' = 'no_stream';
      for (let start = 0; start < events.length; start += BATCH) {
        const batch = events.slice(start, start + BATCH);
        await store.append(`account-${orgId}`, batch, { expectedRevision: revision });
        revision = BigInt(start + batch.length - 1);
        written += batch.length;
      }
      if (org % 100 === 99) process.stdout.write(`  written ${written.toLocaleString('en')} events\n`);
    }
    const writeSeconds = (performance.now() - writeStarted) / 1000;

    const replayStarted = performance.now();
    const replay = await replayLedger(store);
    const replaySeconds = (performance.now() - replayStarted) / 1000;
    const verifyStarted = performance.now();
    await replayLedger(store, { accountState: true });
    const verifySeconds = (performance.now() - verifyStarted) / 1000;

    // every organization: credit − pairs × cost, nothing open
    const expectedBalance = CREDIT - BigInt(pairs) * COST;
    const accounts = [...replay.head.accounts.values()];
    const consistent = accounts.length === ORGANIZATIONS && accounts.every((account) => balanceOfAccount(account) === expectedBalance && account.open.size === 0);
    process.stdout.write(
      `${JSON.stringify({ events: replay.eventsRead, writeSeconds: Number(writeSeconds.toFixed(1)), replaySeconds: Number(replaySeconds.toFixed(1)), verifyReplaySeconds: Number(verifySeconds.toFixed(1)), eventsPerSecond: Math.round(replay.eventsRead / replaySeconds), consistent })}\n`,
    );
    if (!consistent) process.exitCode = 1;
  } finally {
    await database.close();
  }
});
