import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Checkpoints of the projection runner (projections/). A projection's read model lives in one schema per
 * generation (`rm_<projection>_<generation>`); the row of a generation holds the position of the last
 * event applied to it, written in the same transaction as the rows the events changed. At most one
 * generation of a projection is 'active' (served through views in `public`); a rebuild fills a
 * 'building' one and swaps it in; the old one becomes 'retired' and is then dropped.
 */
export const projectionCheckpointsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create table projection_checkpoints (
      projection text not null,
      generation integer not null check (generation > 0),
      status text not null check (status in ('building', 'active', 'retired')),
      definition_version integer not null,
      position text,
      events_processed bigint not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (projection, generation)
    )`.execute(db);
    await sql`create unique index projection_checkpoints_one_active on projection_checkpoints (projection) where status = 'active'`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table projection_checkpoints`.execute(db);
  },
};
