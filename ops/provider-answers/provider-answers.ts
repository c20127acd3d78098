import type { FormatName } from '../../src/formats/canonical/format-name.js';
import type { JsonObject } from '../../src/formats/json-value.js';
import type { SseEvent } from '../../src/formats/sse-event.js';
import type { AnswerSpec } from './answer-spec.js';
import { chatProviderResponse, chatProviderStream } from './chat-provider-answer.js';
import { messagesProviderResponse, messagesProviderStream } from './messages-provider-answer.js';
import { responsesProviderResponse, responsesProviderStream } from './responses-provider-answer.js';

/** An answer as the provider that speaks `format` sends it: one JSON body, or its stream of events. */
export function providerResponse(format: FormatName, spec: AnswerSpec): JsonObject {
  switch (format) {
    case 'chat':
      return chatProviderResponse(spec);
    case 'messages':
      return messagesProviderResponse(spec);
    case 'responses':
      return responsesProviderResponse(spec);
  }
}

export function providerStream(format: FormatName, spec: AnswerSpec): SseEvent[] {
  switch (format) {
    case 'chat':
      return chatProviderStream(spec);
    case 'messages':
      return messagesProviderStream(spec);
    case 'responses':
      return responsesProviderStream(spec);
  }
}

