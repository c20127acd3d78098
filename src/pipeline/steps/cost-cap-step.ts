import { formatUsd, isUsdAmount, parseUsd, type Nanodollars } from '../../billing/money.js';
import { dearestWorstCase } from '../candidates.js';
import type { BodyKind, CapLowering, EndpointRequest } from '../../endpoints/endpoint-spec.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { headerValue } from '../client-connection.js';
import type { Estimated } from '../request-stages.js';

export const MAX_COST_HEADER = 'X-Max-Cost-USD';
export const MAX_COST_APPLIED_HEADER = 'X-Max-Cost-Applied';

/**
 * The request's cost cap: `X-Max-Cost-USD`, or the key's `max_cost_per_request_usd`, the lower of the two
 * when both are set (the header can lower the key's cap, never raise it). A request whose worst case costs
 * more has its output cap lowered, where the endpoint can (`lowerCap`: the text formats), to the largest
 * that fits, input included, and reserves exactly that; where it cannot, or when even the input and a
 * one-token answer cost more, it is refused (`402 request_cost_cap_exceeded`), before anything is reserved.
 * The answer says the cap it ran under (`X-Max-Cost-Applied`). The worst cases are priced as the estimate
 * step prices the reserve (`worstCaseCharge` at each candidate's price version and tier, the dearest kept).
 */
export function costCapStep<Request extends EndpointRequest, Kind extends BodyKind>(stage: Estimated<Request, Kind>): Estimated<Request, Kind> {
  const { connection, caller, spec, amount } = stage;
  const cap = costCapOf(headerValue(connection, MAX_COST_HEADER), caller.key.maxCostPerRequest);
  if (cap === undefined) return stage;
  connection.setHeader(MAX_COST_APPLIED_HEADER, formatUsd(cap));
  if (amount <= cap) return stage;
  // the lowered worst case at every candidate's price, the dearest kept: the reserve's own rule
  const priced = (lowering: CapLowering<Request, Kind>) => dearestWorstCase(stage.priced, lowering.estimate.worstCase);
  const most = stage.estimate.worstCase.outputTokens ?? 0;
  if (!spec.lowerCap || most < 1) throw overCap(`this request can cost up to ${formatUsd(amount)} USD`, cap);
  const lower = (outputTokens: number) => spec.lowerCap!(stage, outputTokens);
  const smallest = priced(lower(1));
  if (smallest > cap) throw overCap(`its input (with a one-token answer) costs up to ${formatUsd(smallest)} USD`, cap);
  // the largest output cap whose worst case fits: a price only grows with tokens, and `most` does not fit
  let low = 1;
  let high = most - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (priced(lower(middle)) <= cap) low = middle;
    else high = middle - 1;
  }
  const fits = lower(low);
  return { ...stage, request: fits.request, body: fits.body, estimate: fits.estimate, amount: priced(fits) };
}

function costCapOf(header: string | undefined, keyCap: string | null): Nanodollars | undefined {
  const fromKey = keyCap === null ? undefined : BigInt(keyCap);
  if (header === undefined) return fromKey;
  if (!isUsdAmount(header) || parseUsd(header) === 0n) {
    throw new GatewayError('invalid_request', `${MAX_COST_HEADER} must be an amount of USD above zero, such as 0.05 (got ${JSON.stringify(header)})`, { param: MAX_COST_HEADER });
  }
  const fromHeader = parseUsd(header);
  return fromKey !== undefined && fromKey < fromHeader ? fromKey : fromHeader;
}

function overCap(what: string, cap: Nanodollars): GatewayError {
  return new GatewayError('request_cost_cap_exceeded', `${what}, more than its cost cap of ${formatUsd(cap)} USD (${MAX_COST_HEADER} or the key's max_cost_per_request_usd); nothing was charged`);
}
