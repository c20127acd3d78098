import { GatewayError } from '../../errors/gateway-error.js';
import { isJsonObject, type JsonValue } from '../../formats/json-value.js';

/**
 * An embedding as the client asked for it: `float` (an array of numbers) or `base64` (the little-endian
 * float32 bytes, base64-encoded; the official `openai` package asks for this by default and decodes it,
 * wire-formats.md 4.1). A provider that answered in the other encoding (some OpenAI-compatible servers
 * ignore `encoding_format`) is converted; one that answered in the asked encoding passes through.
 */
export type EmbeddingEncoding = 'float' | 'base64';

export function convertEmbeddings(data: JsonValue | undefined, encoding: EmbeddingEncoding): JsonValue {
  if (!Array.isArray(data)) throw new GatewayError('provider_error', 'the provider answered embeddings without a data array');
  return data.map((item) => {
    if (!isJsonObject(item)) return item;
    const embedding = item.embedding;
    if (encoding === 'base64' && Array.isArray(embedding)) return { ...item, embedding: toBase64(embedding) };
    if (encoding === 'float' && typeof embedding === 'string') return { ...item, embedding: fromBase64(embedding) };
    return item;
  });
}

function toBase64(vector: readonly JsonValue[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(typeof value === 'number' ? value : Number.NaN, index * 4));
  return bytes.toString('base64');
}

function fromBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({ length: Math.floor(bytes.length / 4) }, (_, index) => bytes.readFloatLE(index * 4));
}
