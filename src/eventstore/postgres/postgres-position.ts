import type { GlobalPosition } from '../event-store.js';

/**
 * A position in the Postgres log is the pair (transaction id, global sequence) that orders it. Serialised
 * as two zero-padded decimals, `<xid>:<sequence>`, so that positions also sort as strings (handy when an
 * operator reads the checkpoint table); callers still treat them as opaque.
 */
export interface PostgresPosition {
  readonly transactionId: bigint;
  readonly sequence: bigint;
}

const WIDTH = 20; // 2^64 has 20 decimal digits
const POSITION_PATTERN = /^(\d{20}):(\d{20})$/;

export const POSTGRES_START: PostgresPosition = { transactionId: 0n, sequence: 0n };

export function encodePostgresPosition(transactionId: bigint | string, sequence: bigint | string): GlobalPosition {
  return `${String(transactionId).padStart(WIDTH, '0')}:${String(sequence).padStart(WIDTH, '0')}` as GlobalPosition;
}

export function decodePostgresPosition(position: GlobalPosition | 'start'): PostgresPosition {
  if (position === 'start') return POSTGRES_START;
  const match = POSITION_PATTERN.exec(position);
  if (!match) throw new TypeError(`${JSON.stringify(position)} is not a position of the Postgres event store`);
  return { transactionId: BigInt(match[1]!), sequence: BigInt(match[2]!) };
}

export function comparePostgresPositions(a: PostgresPosition, b: PostgresPosition): number {
  if (a.transactionId !== b.transactionId) return a.transactionId < b.transactionId ? -1 : 1;
  if (a.sequence !== b.sequence) return a.sequence < b.sequence ? -1 : 1;
  return 0;
}
