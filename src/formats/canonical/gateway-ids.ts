/**
 * Ids the gateway shows for translated answers, derived from the request id so a log line, the
 * `X-Request-Id` header and the body can be matched: chat uses the request id itself (spec 2.1); messages
 * and responses use their format's prefix on the same random part; items carry their position.
 */
export function requestIdSuffix(requestId: string): string {
  return requestId.startsWith('gen-') ? requestId.slice(4) : requestId;
}

export function messagesMessageId(requestId: string): string {
  return `msg_${requestIdSuffix(requestId)}`;
}

export function responsesResponseId(requestId: string): string {
  return `resp_${requestIdSuffix(requestId)}`;
}

export type ResponsesItemPrefix = 'msg' | 'fc' | 'rs';

export function responsesItemId(prefix: ResponsesItemPrefix, requestId: string, outputIndex: number): string {
  return `${prefix}_${requestIdSuffix(requestId)}_${outputIndex}`;
}

/** For providers that stream a tool call without an id (some OpenAI-compatible servers). */
export function syntheticToolCallId(seed: string, index: number): string {
  return `call_${requestIdSuffix(seed).replace(/[^A-Za-z0-9_-]/g, '')}_${index}`;
}
