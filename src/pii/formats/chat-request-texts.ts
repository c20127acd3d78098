import { eachItem, isRecord, maskContent, maskJsonText, withField, type JsonRecord, type Mask } from './json-texts.js';

/**
 * The texts of a chat-completions request (wire-formats.md 1.1) the provider would read: every message's
 * content as a string or its text parts (system, developer, user, assistant, tool results), and the
 * arguments of the assistant's tool calls in the history (and the deprecated `function_call`). Images,
 * audio and files, tool definitions, names and ids are left as they are.
 */
const TEXT_PARTS = new Set(['text']);

export async function maskChatRequest(body: JsonRecord, mask: Mask): Promise<JsonRecord> {
  return withField(body, 'messages', (messages) =>
    eachItem(messages, async (message) => {
      if (!isRecord(message)) return message;
      let masked = await withField(message, 'content', (content) => maskContent(content, mask, TEXT_PARTS));
      masked = await withField(masked, 'tool_calls', (calls) =>
        eachItem(calls, async (call) =>
          isRecord(call) ? withField(call, 'function', async (fn) => (isRecord(fn) ? withField(fn, 'arguments', (args) => maskJsonText(args, mask)) : fn)) : call,
        ),
      );
      return withField(masked, 'function_call', async (fn) => (isRecord(fn) ? withField(fn, 'arguments', (args) => maskJsonText(args, mask)) : fn));
    }),
  );
}
