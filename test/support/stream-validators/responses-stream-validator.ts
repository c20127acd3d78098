import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, tryParseJson, type JsonObject, type JsonValue } from '../../../src/formats/json-value.js';
import type { SseEvent } from '../../../src/formats/sse-event.js';

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);
const STATUS_OF_TERMINAL: Readonly<Record<string, string>> = {
  'response.completed': 'completed',
  'response.incomplete': 'incomplete',
  'response.failed': 'failed',
};

interface OpenItem {
  id: unknown;
  outputIndex: number;
  type: unknown;
  text: string;
  parts: number;
}

/**
 * Checks a responses stream the gateway emitted (wire-formats.md 3.3): `sequence_number` 0,1,2…;
 * `response.created` then `response.in_progress`; items added at output indices 0,1,2…, one open at a
 * time, deltas only to the open item, `.done` texts equal to the joined deltas; exactly one terminal
 * event, last, whose response lists the finished items and carries usage when it completed.
 */
export function validateResponsesStream(events: readonly SseEvent[]): string[] {
  const violations: string[] = [];
  const done: JsonValue[] = [];
  let open: OpenItem | undefined;
  let terminal: string | undefined;
  events.forEach((event, position) => {
    const where = `event ${position}`;
    if (terminal) return void violations.push(`${where}: ${String(event.event)} after ${terminal}`);
    const payload = tryParseJson(event.data);
    if (!isJsonObject(payload)) return void violations.push(`${where}: data is not a JSON object`);
    const type = String(payload.type);
    if (event.event !== type) violations.push(`${where}: event name ${String(event.event)} differs from type ${type}`);
    if (payload.sequence_number !== position) violations.push(`${where}: sequence_number ${String(payload.sequence_number)}, expected ${position}`);
    if (position === 0 && type !== 'response.created') violations.push(`${where}: first event is ${type}, not response.created`);
    if (position === 1 && type !== 'response.in_progress') violations.push(`${where}: second event is ${type}, not response.in_progress`);
    const atOpen = () => {
      if (!open || payload.item_id !== open.id || payload.output_index !== open.outputIndex) {
        violations.push(`${where}: ${type} for an item that is not open`);
        return false;
      }
      return true;
    };
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
        if (!isJsonObject(payload.response) || payload.response.status !== 'in_progress') violations.push(`${where}: ${type} without an in_progress response`);
        return;
      case 'response.output_item.added': {
        const item = isJsonObject(payload.item) ? payload.item : {};
        if (open) violations.push(`${where}: item added while item ${open.outputIndex} is open`);
        if (payload.output_index !== done.length) violations.push(`${where}: output_index ${String(payload.output_index)}, expected ${done.length}`);
        open = { id: item.id, outputIndex: done.length, type: item.type, text: '', parts: 0 };
        return;
      }
      case 'response.content_part.added':
      case 'response.reasoning_summary_part.added':
        if (atOpen() && open) open.parts++;
        return;
      case 'response.output_text.delta':
      case 'response.reasoning_summary_text.delta':
      case 'response.function_call_arguments.delta':
        if (atOpen() && open) {
          if (type !== 'response.function_call_arguments.delta' && open.parts === 0) violations.push(`${where}: delta before its part was added`);
          open.text += String(payload.delta);
        }
        return;
      case 'response.output_text.done':
      case 'response.reasoning_summary_text.done':
        if (atOpen() && open && payload.text !== open.text) violations.push(`${where}: done text differs from the joined deltas`);
        return;
      case 'response.function_call_arguments.done':
        if (atOpen() && open && payload.arguments !== open.text) violations.push(`${where}: done arguments differ from the joined deltas`);
        return;
      case 'response.content_part.done':
      case 'response.reasoning_summary_part.done':
        atOpen();
        return;
      case 'response.output_item.done': {
        const item = isJsonObject(payload.item) ? payload.item : {};
        if (!open || payload.output_index !== open.outputIndex || item.id !== open.id) violations.push(`${where}: done for an item that is not open`);
        if (item.type === 'function_call' && isJsonObject(tryParseJson(String(item.arguments))) === false && item.arguments !== '') {
          violations.push(`${where}: function_call arguments are not a JSON object`);
        }
        done.push(item);
        open = undefined;
        return;
      }
      default:
        if (!TERMINAL.has(type)) return void violations.push(`${where}: unknown event ${type}`);
        terminal = type;
        if (type === 'error') return;
        checkFinal(isJsonObject(payload.response) ? payload.response : {}, type, done, where, violations);
    }
  });
  if (!terminal) violations.push('the stream has no terminal event');
  return violations;
}

function checkFinal(response: JsonObject, type: string, done: JsonValue[], where: string, violations: string[]): void {
  if (response.status !== STATUS_OF_TERMINAL[type]) violations.push(`${where}: ${type} with status ${String(response.status)}`);
  if (type !== 'response.failed' && !isDeepStrictEqual(response.output, done)) violations.push(`${where}: final output differs from the items streamed`);
  if (type === 'response.completed' && !isJsonObject(response.usage)) violations.push(`${where}: response.completed without usage`);
  if (type === 'response.failed' && !isJsonObject(response.error)) violations.push(`${where}: response.failed without error`);
}
