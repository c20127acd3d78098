import { GatewayError } from '../errors/gateway-error.js';
import { isJsonObject, type JsonObject } from '../formats/json-value.js';

/** The request's own fallbacks field (docs/client-guide.md): a gateway field, never sent to a provider. */
export const FALLBACKS_FIELD = 'fallbacks';
const MOST_FALLBACKS = 5;

/**
 * Takes the request's `fallbacks` (catalog model ids tried in order when the requested model's deployments
 * all fail) out of a JSON body, so that no provider ever sees it, pass-through included. A body without it
 * is returned as it is. Anything but a list of up to five model ids is `400 invalid_request`.
 */
export function takeRequestFallbacks<Body>(body: Body): { body: Body; fallbacks: readonly string[] | undefined } {
  const json: JsonObject | undefined = isJsonObject(body) ? body : undefined;
  if (!json || !Object.hasOwn(json, FALLBACKS_FIELD)) return { body, fallbacks: undefined };
  const { [FALLBACKS_FIELD]: value, ...rest } = json;
  const valid = Array.isArray(value) && value.length <= MOST_FALLBACKS && value.every((item) => typeof item === 'string' && item.length > 0);
  if (!valid) {
    throw new GatewayError('invalid_request', `${FALLBACKS_FIELD} must be a list of at most ${MOST_FALLBACKS} model ids, tried in order when the model fails`, { param: FALLBACKS_FIELD });
  }
  return { body: rest as Body, fallbacks: [...new Set(value as string[])] };
}
