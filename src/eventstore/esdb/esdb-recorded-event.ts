import type { AllStreamResolvedEvent, Position, ResolvedEvent } from '@eventstore/db-client';
import { CorruptEventError, parseStoredEnvelope } from '../event-envelope.js';
import type { RecordedEvent } from '../event-store.js';
import { encodeEsdbPosition } from './esdb-position.js';

type EsdbRecorded = NonNullable<ResolvedEvent['event']> | NonNullable<AllStreamResolvedEvent['event']>;

/** Events of EventStoreDB's own streams (`$…`) and its own types (`$…`) are not ours; readers skip them. */
export function isSystemEvent(event: { streamId: string; type: string }): boolean {
  return event.streamId.startsWith('$') || event.type.startsWith('$');
}

export function toRecordedEvent(event: EsdbRecorded): RecordedEvent {
  const where = `${event.streamId}@${event.revision}`;
  // Positions on stream reads came with server 22.6; older servers cannot serve this port.
  const position: Position | undefined = event.position;
  if (!position) throw new CorruptEventError(`event ${where} has no $all position: EventStoreDB 22.6 or newer is required`);
  if (!event.isJson) throw new CorruptEventError(`event ${where} is not a JSON event`);
  const envelope = parseStoredEnvelope({ id: event.id, type: event.type, data: event.data, metadata: event.metadata }, where);
  return {
    ...envelope,
    id: envelope.id.toLowerCase(),
    streamId: event.streamId,
    revision: event.revision,
    position: encodeEsdbPosition(position),
    recordedAt: event.created,
  };
}
