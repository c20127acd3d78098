import { isJsonObject, tryParseJson } from '../../../src/formats/json-value.js';
import type { SseEvent } from '../../../src/formats/sse-event.js';

const DELTA_OF_BLOCK: Readonly<Record<string, readonly string[]>> = {
  text: ['text_delta', 'citations_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  tool_use: ['input_json_delta'],
  server_tool_use: ['input_json_delta'],
  redacted_thinking: [],
};

/**
 * Checks a messages stream the gateway emitted against the grammar peers broke (peer-pitfalls.md): exactly
 * one `message_start` first; blocks started at indices 0,1,2…, each closed exactly once before the next
 * opens, deltas only to the open block and of its kind; tool_use blocks flat `{type,id,name,input:{}}`
 * whose `input_json_delta`s join into a JSON object; a `message_delta` with a stop reason and cumulative
 * usage after the last block; `message_stop` last — or `error` last. Returns the violations.
 */
export function validateMessagesStream(events: readonly SseEvent[]): string[] {
  const violations: string[] = [];
  let started = false;
  let nextIndex = 0;
  let open: { index: number; type: string; json: string } | undefined;
  let messageDeltas = 0;
  let terminal: string | undefined;
  events.forEach((event, position) => {
    const where = `event ${position}`;
    if (terminal) return void violations.push(`${where}: ${event.event ?? 'event'} after ${terminal}`);
    const payload = tryParseJson(event.data);
    if (!isJsonObject(payload)) return void violations.push(`${where}: data is not a JSON object`);
    if (event.event !== payload.type) violations.push(`${where}: event name ${String(event.event)} differs from type ${String(payload.type)}`);
    if (payload.type === 'ping') return;
    if (payload.type === 'error') {
      terminal = 'error';
      const error = isJsonObject(payload.error) ? payload.error : {};
      if (typeof error.type !== 'string' || typeof error.message !== 'string') violations.push(`${where}: error without type and message`);
      return;
    }
    if (payload.type === 'message_start') {
      if (started) violations.push(`${where}: second message_start`);
      started = true;
      const message = isJsonObject(payload.message) ? payload.message : {};
      const usage = isJsonObject(message.usage) ? message.usage : {};
      if (message.type !== 'message' || message.role !== 'assistant') violations.push(`${where}: message_start is not an assistant message`);
      if (!Array.isArray(message.content) || message.content.length !== 0) violations.push(`${where}: message_start content is not empty`);
      if (typeof usage.input_tokens !== 'number' || typeof usage.output_tokens !== 'number') violations.push(`${where}: message_start usage lacks token counts`);
      return;
    }
    if (!started) return void violations.push(`${where}: ${String(payload.type)} before message_start`);
    switch (payload.type) {
      case 'content_block_start': {
        const block = isJsonObject(payload.content_block) ? payload.content_block : {};
        if (open) violations.push(`${where}: block ${payload.index} starts while block ${open.index} is open`);
        if (messageDeltas > 0) violations.push(`${where}: block starts after message_delta`);
        if (payload.index !== nextIndex) violations.push(`${where}: block index ${String(payload.index)}, expected ${nextIndex}`);
        const type = typeof block.type === 'string' ? block.type : '';
        if (!(type in DELTA_OF_BLOCK)) violations.push(`${where}: unknown block type ${type}`);
        if (type === 'tool_use') {
          const keys = Object.keys(block).sort().join(',');
          if (keys !== 'id,input,name,type') violations.push(`${where}: tool_use block is not flat {type,id,name,input} (keys ${keys})`);
          if (!isJsonObject(block.input) || Object.keys(block.input).length !== 0) violations.push(`${where}: tool_use block input is not {}`);
          if (typeof block.id !== 'string' || block.id === '' || typeof block.name !== 'string' || block.name === '') violations.push(`${where}: tool_use block without id or name`);
        }
        open = { index: nextIndex, type, json: '' };
        nextIndex++;
        return;
      }
      case 'content_block_delta': {
        const delta = isJsonObject(payload.delta) ? payload.delta : {};
        if (!open || payload.index !== open.index) return void violations.push(`${where}: delta for block ${String(payload.index)} which is not open`);
        if (!DELTA_OF_BLOCK[open.type]?.includes(String(delta.type))) violations.push(`${where}: ${String(delta.type)} in a ${open.type} block`);
        if (delta.type === 'input_json_delta') open.json += String(delta.partial_json);
        return;
      }
      case 'content_block_stop':
        if (!open || payload.index !== open.index) return void violations.push(`${where}: stop for block ${String(payload.index)} which is not open`);
        if (open.type === 'tool_use' && open.json !== '' && !isJsonObject(tryParseJson(open.json))) {
          violations.push(`${where}: tool_use arguments do not form a JSON object`);
        }
        open = undefined;
        return;
      case 'message_delta': {
        if (open) violations.push(`${where}: message_delta while block ${open.index} is open`);
        messageDeltas++;
        const delta = isJsonObject(payload.delta) ? payload.delta : {};
        const usage = isJsonObject(payload.usage) ? payload.usage : {};
        if (typeof delta.stop_reason !== 'string') violations.push(`${where}: message_delta without stop_reason`);
        if (typeof usage.output_tokens !== 'number') violations.push(`${where}: message_delta usage without output_tokens`);
        return;
      }
      case 'message_stop':
        terminal = 'message_stop';
        if (messageDeltas === 0) violations.push(`${where}: message_stop without message_delta`);
        return;
      default:
        violations.push(`${where}: unknown event ${String(payload.type)}`);
    }
  });
  if (!started && terminal !== 'error') violations.push('no message_start');
  if (!terminal) violations.push('the stream has no terminal event (message_stop or error)');
  return violations;
}
