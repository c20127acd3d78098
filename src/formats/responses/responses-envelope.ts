import type { JsonObject, JsonValue } from '../json-value.js';
import type { CanonicalError } from '../canonical/canonical-error.js';
import { responsesResponseId } from '../canonical/gateway-ids.js';
import type { ClientIdentity } from '../canonical/stream-codec.js';
import type { ResponsesOutcome } from './responses-status.js';

/** `ResponseErrorCode` has a closed enum (wire-formats.md 3.2); gateway codes such as key_revoked are kept. */
export function responsesErrorCode(error: CanonicalError): string {
  if (error.code !== 'provider_error') return error.code;
  return error.status === 429 ? 'rate_limit_exceeded' : 'server_error';
}

/**
 * The `Response` object around the output, shared by the non-streaming renderer and the stream encoder so
 * that a streamed answer accumulates (openai `ResponseStream`) to exactly the non-streamed one. Request
 * echo fields are neutral (the gateway is stateless and does not echo instructions or tools), except `text`:
 * clients read the output format back from it.
 */
export function responsesEnvelope(
  identity: ClientIdentity,
  outcome: ResponsesOutcome | { status: 'in_progress' },
  output: JsonValue[],
  usage: JsonObject | null,
  error?: CanonicalError,
): JsonObject {
  return {
    id: responsesResponseId(identity.requestId),
    object: 'response',
    created_at: identity.created,
    status: outcome.status,
    error: error ? { code: responsesErrorCode(error), message: error.message } : null,
    incomplete_details: 'incompleteReason' in outcome && outcome.incompleteReason ? { reason: outcome.incompleteReason } : null,
    instructions: null,
    max_output_tokens: null,
    model: identity.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: null,
    store: false,
    temperature: null,
    text: identity.responsesText ?? { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage,
    metadata: {},
  };
}
