import pg from 'pg';

/**
 * Rows for the request log, written straight into the ledger projection's `requests` table with one
 * `insert … select … from generate_series`: 100,000 rows take about a second this way, where sending as
 * many requests through the gateway (200,000 events, then the projection) would take minutes of the test
 * run. The rows are the read model's own shape, so the log's queries and indexes are what they are in
 * production; they have no events behind them (their revisions name none), so only the request log, not
 * the balances or the audit, sees them: use a database of the test's own.
 *
 * One request a second, going back from `newest`, round the given keys, four endpoints and two models;
 * every 50th released for a provider error, the others settled (12 in, 7 out, 0.000006 USD).
 */
export async function seedRequests(databaseUrl: string, seed: { orgId: string; keyIds: readonly string[]; newest: Date; count: number }): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into requests (request_id, org_id, key_id, employee_id, team_id, space_id, endpoint, model, category, reserved, deadline, status,
         release_reason, cost, overrun, usage, reserved_at, closed_at, reserved_revision, closed_revision)
       select 'gen-seed' || lpad(n::text, 7, '0'), $1, ($2::text[])[1 + n % cardinality($2::text[])], null, null, null,
         (array['chat', 'messages', 'responses', 'embeddings'])[1 + n % 4], (array['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5'])[1 + n % 2], 'text',
         61650, at + interval '11 minutes', case when n % 50 = 0 then 'released' else 'settled' end,
         case when n % 50 = 0 then 'provider_error' end, case when n % 50 = 0 then 0 else 6000 end, case when n % 50 = 0 then null else 0 end,
         case when n % 50 = 0 then null else '{"inputTokens": 12, "outputTokens": 7}'::jsonb end,
         at, at + interval '850 milliseconds', 1000000 + n, 2000000 + n
       from generate_series(1, $3::int) as n, lateral (select $4::timestamptz - n * interval '1 second' as at) as t`,
      [seed.orgId, seed.keyIds, seed.count, seed.newest.toISOString()],
    );
    // What autovacuum would do to a table that grew this much: the planner's statistics.
    const { rows } = await client.query<{ generation: number }>(`select generation from projection_checkpoints where projection = 'ledger' and status = 'active'`);
    await client.query(`analyze rm_ledger_${rows[0]!.generation}.requests`);
  } finally {
    await client.end();
  }
}
