import type { Migration } from 'kysely';

/**
 * Every schema migration, by name; kysely runs them in name order. A feature adds its own file here.
 * Migrations never change once released: a new shape is a new migration.
 */
export const migrations: Record<string, Migration> = {};
