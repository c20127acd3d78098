import type { MaskedFormat } from '../masked-format.js';
import type { Placeholders } from '../placeholders.js';
import { ChatStreamUnmasker } from './chat-stream-unmasker.js';
import { MessagesStreamUnmasker } from './messages-stream-unmasker.js';
import { ResponsesStreamUnmasker } from './responses-stream-unmasker.js';
import type { StreamUnmasker } from './stream-event.js';

/** The unmasker of a stream in the client's format. */
export function streamUnmasker(format: MaskedFormat, placeholders: Placeholders): StreamUnmasker {
  switch (format) {
    case 'chat':
      return new ChatStreamUnmasker(placeholders);
    case 'messages':
      return new MessagesStreamUnmasker(placeholders);
    case 'responses':
      return new ResponsesStreamUnmasker(placeholders);
  }
}
