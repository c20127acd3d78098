import type { JsonObject } from './json-value.js';
import type { CanonicalError } from './canonical/canonical-error.js';
import type { CanonicalRequest } from './canonical/canonical-request.js';
import type { CanonicalResponse } from './canonical/canonical-response.js';
import type { FormatName } from './canonical/format-name.js';
import type { RenderedRequest, RequestRenderOptions } from './canonical/rendered-request.js';
import type { ClientIdentity, EncoderOptions, StreamDecoder, StreamEncoder } from './canonical/stream-codec.js';
import { ChatStreamDecoder } from './chat/chat-stream-decoder.js';
import { ChatStreamEncoder } from './chat/chat-stream-encoder.js';
import { errorFromOpenAiBody, renderOpenAiErrorBody } from './chat/openai-error.js';
import { parseChatRequest } from './chat/parse-chat-request.js';
import { parseChatResponse } from './chat/parse-chat-response.js';
import { renderChatRequest } from './chat/render-chat-request.js';
import { renderChatResponse } from './chat/render-chat-response.js';
import { errorFromMessagesBody, renderMessagesErrorBody } from './messages/messages-error.js';
import { MessagesStreamDecoder } from './messages/messages-stream-decoder.js';
import { MessagesStreamEncoder } from './messages/messages-stream-encoder.js';
import { parseMessagesRequest } from './messages/parse-messages-request.js';
import { parseMessagesResponse } from './messages/parse-messages-response.js';
import { renderMessagesRequest } from './messages/render-messages-request.js';
import { renderMessagesResponse } from './messages/render-messages-response.js';
import { parseResponsesRequest } from './responses/parse-responses-request.js';
import { parseResponsesResponse } from './responses/parse-responses-response.js';
import { renderResponsesRequest } from './responses/render-responses-request.js';
import { renderResponsesResponse } from './responses/render-responses-response.js';
import { ResponsesStreamDecoder } from './responses/responses-stream-decoder.js';
import { ResponsesStreamEncoder } from './responses/responses-stream-encoder.js';

/** Everything the pipeline needs of one format, on either side of the gateway. */
export interface FormatCodec {
  /** Client body → canonical; throws `GatewayError` (`invalid_request`, `stateful_not_supported`). */
  parseRequest(body: unknown): CanonicalRequest;
  /** Canonical → provider body in this format. */
  renderRequest(request: CanonicalRequest, options: RequestRenderOptions): RenderedRequest;
  /** Provider body in this format → canonical; throws `GatewayError('provider_error')` when unreadable. */
  parseResponse(body: unknown): CanonicalResponse;
  /** Canonical → client body in this format. */
  renderResponse(response: CanonicalResponse, identity: ClientIdentity): JsonObject;
  /** A provider error body in this format (the HTTP status when known). */
  parseError(body: unknown, status?: number): CanonicalError;
  /** The gateway's error body for a client of this format (spec 2.3). */
  renderError(error: CanonicalError): JsonObject;
  createDecoder(): StreamDecoder;
  createEncoder(options: EncoderOptions): StreamEncoder;
}

export const formatCodecs: Readonly<Record<FormatName, FormatCodec>> = {
  chat: {
    parseRequest: parseChatRequest,
    renderRequest: renderChatRequest,
    parseResponse: parseChatResponse,
    renderResponse: renderChatResponse,
    parseError: errorFromOpenAiBody,
    renderError: renderOpenAiErrorBody,
    createDecoder: () => new ChatStreamDecoder(),
    createEncoder: (options) => new ChatStreamEncoder(options),
  },
  messages: {
    parseRequest: parseMessagesRequest,
    renderRequest: renderMessagesRequest,
    parseResponse: parseMessagesResponse,
    renderResponse: renderMessagesResponse,
    parseError: errorFromMessagesBody,
    renderError: renderMessagesErrorBody,
    createDecoder: () => new MessagesStreamDecoder(),
    createEncoder: (options) => new MessagesStreamEncoder(options),
  },
  responses: {
    parseRequest: parseResponsesRequest,
    renderRequest: renderResponsesRequest,
    parseResponse: parseResponsesResponse,
    renderResponse: renderResponsesResponse,
    parseError: errorFromOpenAiBody,
    renderError: renderOpenAiErrorBody,
    createDecoder: () => new ResponsesStreamDecoder(),
    createEncoder: (options) => new ResponsesStreamEncoder(options),
  },
};
