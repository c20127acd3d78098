import { isJsonObject, type JsonObject } from './json-value.js';
import type { Usage } from '../billing/usage.js';
import { dropUnsupportedNativeParams } from './canonical/drop-unsupported-params.js';
import type { FormatName } from './canonical/format-name.js';
import type { ClientIdentity, ClientStream, EncoderOptions } from './canonical/stream-codec.js';
import { ChatPassThroughStream } from './chat/chat-pass-through-stream.js';
import { chatUsageAsCharged, usageFromChat } from './chat/chat-usage.js';
import { MessagesPassThroughStream } from './messages/messages-pass-through-stream.js';
import { usageFromMessages, usageToMessages } from './messages/messages-usage.js';
import { ResponsesPassThroughStream } from './responses/responses-pass-through-stream.js';
import { usageFromResponses } from './responses/responses-usage.js';

export { replaceModelInRawJson } from './canonical/raw-json-model.js';

export interface PassThroughRequestOptions {
  /** The provider's own model name. */
  readonly model: string;
  /** The model's `drop_params` from the catalog. */
  readonly dropParams?: readonly string[];
}

/**
 * Same format on both sides (DESIGN 7): the client body goes upstream as sent, unknown fields included,
 * with the model replaced — plus the two changes the gateway's own rules need: chat streams always ask for
 * usage (billing; hidden again from a client that did not ask), and responses are never stored upstream
 * (the gateway is stateless, spec 4.3; OpenAI stores by default).
 */
export function passThroughRequest(format: FormatName, body: JsonObject, options: PassThroughRequestOptions): { body: JsonObject; dropped: readonly string[] } {
  const { value, dropped } = dropUnsupportedNativeParams(body, options.dropParams ?? []);
  const next: JsonObject = { ...value, model: options.model };
  switch (format) {
    case 'chat':
      if (next.stream === true) next.stream_options = { ...(isJsonObject(next.stream_options) ? next.stream_options : {}), include_usage: true };
      break;
    case 'responses':
      if (next.store === undefined) next.store = false;
      break;
    case 'messages':
      break;
  }
  return { body: next, dropped };
}

/** A same-format provider answer with the gateway's identity; usage read for settlement. */
export function passThroughResponse(format: FormatName, body: JsonObject, identity: ClientIdentity): { body: JsonObject; usage: Usage | undefined } {
  switch (format) {
    case 'chat': {
      const usage = usageFromChat(body.usage);
      const shown = usage && isJsonObject(body.usage) ? chatUsageAsCharged(body.usage, usage) : body.usage;
      return { body: { ...body, id: identity.requestId, model: identity.model, ...(shown === undefined ? {} : { usage: shown }) }, usage };
    }
    case 'messages': {
      const usage = usageFromMessages(body.usage);
      // Spec 2.2: the gateway's input_tokens is the whole input, cache included.
      const shown = usage && isJsonObject(body.usage) ? { ...body.usage, input_tokens: usageToMessages(usage).input_tokens! } : body.usage;
      return { body: { ...body, model: identity.model, ...(shown === undefined ? {} : { usage: shown }) }, usage };
    }
    case 'responses':
      return { body: { ...body, model: identity.model }, usage: usageFromResponses(body.usage) };
  }
}

export function createPassThroughStream(format: FormatName, options: EncoderOptions): ClientStream {
  switch (format) {
    case 'chat':
      return new ChatPassThroughStream(options);
    case 'messages':
      return new MessagesPassThroughStream(options);
    case 'responses':
      return new ResponsesPassThroughStream(options);
  }
}
