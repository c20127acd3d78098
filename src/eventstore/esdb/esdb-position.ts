import type { Position } from '@eventstore/db-client';
import type { GlobalPosition } from '../event-store.js';

/**
 * A `$all` position is the pair of transaction-file offsets `{commit, prepare}` (sparse, not a counter).
 * Serialised as `<commit>:<prepare>`, each zero-padded to 20 digits so that positions sort as strings.
 */
const WIDTH = 20;
const POSITION_PATTERN = /^(\d{20}):(\d{20})$/;

export function encodeEsdbPosition(position: Position): GlobalPosition {
  return `${position.commit.toString().padStart(WIDTH, '0')}:${position.prepare.toString().padStart(WIDTH, '0')}` as GlobalPosition;
}

export function decodeEsdbPosition(position: GlobalPosition): Position {
  const match = POSITION_PATTERN.exec(position);
  if (!match) throw new TypeError(`${JSON.stringify(position)} is not a position of the EventStoreDB event store`);
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
}

export function compareEsdbPositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}
