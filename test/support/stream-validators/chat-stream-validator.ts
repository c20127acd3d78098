import { isJsonObject, tryParseJson, type JsonObject } from '../../../src/formats/json-value.js';
import type { SseEvent } from '../../../src/formats/sse-event.js';

export interface ChatStreamExpectations {
  /** The client asked for `stream_options.include_usage`: exactly one usage chunk, else none. */
  readonly includeUsage: boolean;
  readonly id?: string;
  readonly model?: string;
}

function checkUsage(usage: JsonObject, where: string, violations: string[]): void {
  for (const key of ['prompt_tokens', 'completion_tokens', 'total_tokens']) {
    if (typeof usage[key] !== 'number') violations.push(`${where}: usage.${key} is not a number`);
  }
  if (typeof usage.total_tokens === 'number' && usage.total_tokens !== Number(usage.prompt_tokens) + Number(usage.completion_tokens)) {
    violations.push(`${where}: usage.total_tokens is not prompt_tokens + completion_tokens`);
  }
}

/**
 * Checks a chat-completions stream the gateway emitted (wire-formats.md 1.4): data-only events; one id,
 * created and model throughout; a first chunk with the assistant role; tool-call fragments whose first
 * piece names the call, indices 0,1,2… never revisited; exactly one finish_reason; the usage chunk (empty
 * choices) exactly when asked for; `[DONE]` last — or an `{"error":…}` chunk last. Returns the violations.
 */
export function validateChatStream(events: readonly SseEvent[], expect: ChatStreamExpectations): string[] {
  const violations: string[] = [];
  let envelope: { id: unknown; created: unknown; model: unknown } | undefined;
  let finishes = 0;
  let usageChunks = 0;
  let terminal: 'done' | 'error' | undefined;
  let currentTool = -1;
  const seenTools = new Set<number>();
  events.forEach((event, position) => {
    const where = `event ${position}`;
    if (terminal) return void violations.push(`${where}: event after the ${terminal === 'done' ? '[DONE]' : 'error'} terminal event`);
    if (event.event !== undefined) violations.push(`${where}: chat events carry no event name (got ${event.event})`);
    if (event.data === '[DONE]') return void (terminal = 'done');
    const chunk = tryParseJson(event.data);
    if (!isJsonObject(chunk)) return void violations.push(`${where}: data is not a JSON object`);
    if (chunk.error !== undefined) {
      terminal = 'error';
      const error = isJsonObject(chunk.error) ? chunk.error : {};
      if (typeof error.message !== 'string') violations.push(`${where}: error chunk without a message`);
      return;
    }
    if (chunk.object !== 'chat.completion.chunk') violations.push(`${where}: object is ${String(chunk.object)}`);
    if (!envelope) {
      envelope = { id: chunk.id, created: chunk.created, model: chunk.model };
      if (expect.id !== undefined && chunk.id !== expect.id) violations.push(`${where}: id ${String(chunk.id)} is not ${expect.id}`);
      if (expect.model !== undefined && chunk.model !== expect.model) violations.push(`${where}: model ${String(chunk.model)} is not ${expect.model}`);
      if (typeof chunk.created !== 'number') violations.push(`${where}: created is not a number`);
    } else if (chunk.id !== envelope.id || chunk.created !== envelope.created || chunk.model !== envelope.model) {
      violations.push(`${where}: id, created or model differs from the first chunk`);
    }
    const choices = Array.isArray(chunk.choices) ? chunk.choices : undefined;
    if (!choices) return void violations.push(`${where}: choices is not an array`);
    if (isJsonObject(chunk.usage)) {
      if (!expect.includeUsage) violations.push(`${where}: usage shown although the client did not ask for it`);
      if (choices.length !== 0) violations.push(`${where}: the usage chunk must have empty choices`);
      if (finishes === 0) violations.push(`${where}: usage chunk before the finish_reason chunk`);
      usageChunks++;
      checkUsage(chunk.usage, where, violations);
      return;
    }
    if (chunk.usage !== undefined && chunk.usage !== null) violations.push(`${where}: usage is neither an object nor null`);
    if (choices.length !== 1) return void violations.push(`${where}: expected exactly one choice`);
    const choice = choices[0];
    if (!isJsonObject(choice) || choice.index !== 0) return void violations.push(`${where}: choice is not index 0`);
    const delta = isJsonObject(choice.delta) ? choice.delta : undefined;
    if (!delta) violations.push(`${where}: choice without delta`);
    if (position === 0 && delta?.role !== 'assistant') violations.push(`${where}: the first chunk does not carry role assistant`);
    if (finishes > 0) violations.push(`${where}: chunk with a choice after the finish_reason chunk`);
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
      finishes++;
      if (typeof choice.finish_reason !== 'string') violations.push(`${where}: finish_reason is not a string`);
    }
    for (const call of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) {
      if (!isJsonObject(call) || typeof call.index !== 'number') {
        violations.push(`${where}: tool call fragment without index`);
        continue;
      }
      const fn = isJsonObject(call.function) ? call.function : {};
      if (!seenTools.has(call.index)) {
        if (call.index !== seenTools.size) violations.push(`${where}: tool call index ${call.index} is not the next one (${seenTools.size})`);
        if (typeof call.id !== 'string' || call.type !== 'function' || typeof fn.name !== 'string' || fn.name === '') {
          violations.push(`${where}: first fragment of tool call ${call.index} lacks id, type or name`);
        }
        seenTools.add(call.index);
        currentTool = call.index;
      } else if (call.index !== currentTool) {
        violations.push(`${where}: tool call ${call.index} continued after call ${currentTool} started`);
      }
      if (fn.arguments !== undefined && typeof fn.arguments !== 'string') violations.push(`${where}: tool arguments are not a string`);
    }
  });
  if (!terminal) violations.push('the stream has no terminal event ([DONE] or error)');
  if (terminal === 'done') {
    if (finishes !== 1) violations.push(`expected exactly one finish_reason, got ${finishes}`);
    if (expect.includeUsage && usageChunks !== 1) violations.push(`expected exactly one usage chunk, got ${usageChunks}`);
  }
  if (usageChunks > 1) violations.push(`more than one usage chunk (${usageChunks})`);
  return violations;
}
