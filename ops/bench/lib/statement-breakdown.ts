import { withClient } from './bench-database.js';

/**
 * Where Postgres spends its time, by statement, for each target's database: read from
 * `pg_stat_statements` when the benchmark's server has it (a server started with
 * `shared_preload_libraries = 'pg_stat_statements'`, BENCH_POSTGRES_URL pointing at it; docs/operator-guide.md
 * says how). Top-level statements only (a function's own statements are inside its call), so the shares add
 * up to the statement time of the database. The commit's WAL flush is not in it.
 */
export interface StatementRow {
  readonly statement: string;
  readonly calls: number;
  readonly rows: number;
  readonly totalMs: number;
}

export interface StatementBreakdown {
  readonly label: string;
  /** Requests in the database's request log: what "a request" divides by. */
  readonly requests: number;
  readonly statements: readonly StatementRow[];
}

/** Empties the statistics (at the start of a run); false when the server does not keep them. */
export async function resetStatements(adminUrl: string): Promise<boolean> {
  return withClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ present: boolean }>(`select exists (select 1 from pg_extension where extname = 'pg_stat_statements') as present`);
    if (!rows[0]?.present) {
      const loaded = await client.query<{ setting: string }>(`select setting from pg_settings where name = 'shared_preload_libraries'`);
      if (!loaded.rows[0]?.setting.includes('pg_stat_statements')) return false;
      await client.query('create extension if not exists pg_stat_statements');
    }
    await client.query('select pg_stat_statements_reset()');
    return true;
  });
}

/** The statements of one target's database, most time first (read before the database is dropped). */
export async function readStatements(adminUrl: string, databaseUrl: string, label: string): Promise<StatementBreakdown> {
  const database = new URL(databaseUrl).pathname.slice(1);
  const requests = await withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ count: string }>('select count(*)::text as count from requests');
    return Number(rows[0]?.count ?? 0);
  }).catch(() => 0);
  const statements = await withClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ query: string; calls: string; rows: string; total_ms: number }>(
      `select s.query, sum(s.calls)::text as calls, sum(s.rows)::text as rows, sum(s.total_exec_time)::float8 as total_ms
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = $1 and s.toplevel
        group by s.query order by total_ms desc`,
      [database],
    );
    return rows.map((row) => ({ statement: nameOf(row.query), calls: Number(row.calls), rows: Number(row.rows), totalMs: row.total_ms }));
  });
  return { label, requests, statements };
}

/**
 * The statement as text, or what it is for the global page (src/eventstore/postgres/postgres-reads.ts), whose
 * forms differ only past the first hundred characters: by how many stream prefixes filter it (each prefix is
 * tested four times in the query).
 */
function nameOf(query: string): string {
  if (!query.includes('pg_snapshot_xmin(pg_current_snapshot()) as horizon')) return `\`${query.replace(/\s+/g, ' ').trim().slice(0, 110)}\``;
  const prefixes = query.split('starts_with(').length - 1;
  return prefixes === 0 ? 'global page, unfiltered' : `global page, ${prefixes / 4} stream prefix${prefixes === 4 ? '' : 'es'}`;
}

const SHOWN = 12;

export function printStatements(breakdowns: readonly StatementBreakdown[]): void {
  for (const { label, requests, statements } of breakdowns) {
    const total = statements.reduce((sum, row) => sum + row.totalMs, 0);
    console.log(`\nPostgres statements of ${label}: ${requests} requests, ${total.toFixed(0)} ms of statement time, ${requests ? ((total * 1000) / requests).toFixed(0) : 'n/a'} µs a request`);
    console.log('| statement | calls | rows | µs a call | share | µs a request |');
    console.log('|---|---|---|---|---|---|');
    const row = (statement: string, calls: number | string, rows: number | string, ms: number) =>
      console.log(
        `| ${statement} | ${calls} | ${rows} | ${typeof calls === 'number' && calls > 0 ? ((ms * 1000) / calls).toFixed(0) : ''} | ${total ? ((100 * ms) / total).toFixed(1) : '0'} % | ${requests ? ((ms * 1000) / requests).toFixed(1) : 'n/a'} |`,
      );
    for (const statement of statements.slice(0, SHOWN)) row(statement.statement, statement.calls, statement.rows, statement.totalMs);
    const rest = statements.slice(SHOWN);
    if (rest.length > 0) row(`the other ${rest.length} statements`, '', '', rest.reduce((sum, statement) => sum + statement.totalMs, 0));
  }
}
