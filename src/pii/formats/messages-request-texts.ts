import { eachItem, isRecord, maskContent, maskString, maskStringsIn, withField, type Json, type JsonRecord, type Mask } from './json-texts.js';

/**
 * The texts of a messages request (wire-formats.md 2.1) the provider would read: `system` as a string or
 * text blocks; each message's content as a string or blocks: `text`, the input of a `tool_use`, and the
 * content of a `tool_result` (a string or text blocks). Images, documents, thinking blocks (their signature
 * must come back unchanged), tool definitions and ids are left as they are.
 */
const TEXT_BLOCKS = new Set(['text']);

export async function maskMessagesRequest(body: JsonRecord, mask: Mask): Promise<JsonRecord> {
  const masked = await withField(body, 'system', (system) => maskContent(system, mask, TEXT_BLOCKS));
  return withField(masked, 'messages', (messages) =>
    eachItem(messages, async (message) => (isRecord(message) ? withField(message, 'content', (content) => maskBlocks(content, mask)) : message)),
  );
}

async function maskBlocks(content: Json, mask: Mask): Promise<Json> {
  if (typeof content === 'string') return mask(content);
  return eachItem(content, async (block) => {
    if (!isRecord(block)) return block;
    switch (block.type) {
      case 'text':
        return withField(block, 'text', maskString(mask));
      case 'tool_use':
        return withField(block, 'input', (input) => maskStringsIn(input, mask));
      case 'tool_result':
        return withField(block, 'content', (result) => maskContent(result, mask, TEXT_BLOCKS));
      default:
        return block;
    }
  });
}
