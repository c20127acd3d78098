import { eachItem, isRecord, maskContent, maskJsonText, maskString, withField, type Json, type JsonRecord, type Mask } from './json-texts.js';

/**
 * The texts of a responses request (wire-formats.md 3.1) the provider would read: `instructions`, and
 * `input` as a string or items: a message's content (a string, or `input_text` / `output_text` parts),
 * a `function_call`'s arguments and a `function_call_output`'s output (a string or text parts). Images,
 * files, reasoning items, tool definitions and ids are left as they are.
 */
const TEXT_PARTS = new Set(['input_text', 'output_text']);

export async function maskResponsesRequest(body: JsonRecord, mask: Mask): Promise<JsonRecord> {
  const masked = await withField(body, 'instructions', maskString(mask));
  return withField(masked, 'input', async (input) => (typeof input === 'string' ? mask(input) : eachItem(input, (item) => maskItem(item, mask))));
}

async function maskItem(item: Json, mask: Mask): Promise<Json> {
  if (!isRecord(item)) return item;
  switch (item.type ?? 'message') {
    case 'message':
      return withField(item, 'content', (content) => maskContent(content, mask, TEXT_PARTS));
    case 'function_call':
      return withField(item, 'arguments', (args) => maskJsonText(args, mask));
    case 'function_call_output':
      return withField(item, 'output', (output) => maskContent(output, mask, TEXT_PARTS));
    default:
      return item;
  }
}
