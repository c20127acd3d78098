import { maskChatRequest } from './formats/chat-request-texts.js';
import type { JsonRecord } from './formats/json-texts.js';
import { maskMessagesRequest } from './formats/messages-request-texts.js';
import { maskResponsesRequest } from './formats/responses-request-texts.js';
import type { MaskedFormat } from './masked-format.js';
import { Placeholders } from './placeholders.js';
import { TextMasker } from './text-masker.js';

/**
 * A request body with every text the provider would read masked, in the format the client wrote it, and
 * the placeholders that give the values back. Masking the body as the client sent it serves both ways a
 * body reaches the provider: as it is (pass-through) and translated, which is parsed from this body.
 */
export async function maskRequest(format: MaskedFormat, body: JsonRecord): Promise<{ readonly body: JsonRecord; readonly placeholders: Placeholders }> {
  const placeholders = new Placeholders();
  placeholders.noteWritten(body);
  const masker = new TextMasker(placeholders);
  const mask = (text: string) => masker.mask(text);
  const masked = format === 'chat' ? await maskChatRequest(body, mask) : format === 'messages' ? await maskMessagesRequest(body, mask) : await maskResponsesRequest(body, mask);
  return { body: masked, placeholders };
}
