import { countTokens } from 'gpt-tokenizer';
import type { CatalogModel } from '../catalog/catalog.js';
import { costOfUsage } from '../catalog/pricing.js';
import { estimateInputTokens } from '../catalog/reserve-estimate.js';
import type { CanonicalStreamEvent } from '../formats/canonical/canonical-stream-event.js';
import type { ClientStream } from '../formats/canonical/stream-codec.js';
import type { FormatName } from '../formats/canonical/format-name.js';
import { formatCodecs } from '../formats/format-codecs.js';
import type { SseEvent } from '../formats/sse-event.js';
import type { ReleaseReason } from '../ledger/account-events.js';
import type { AccountService } from '../ledger/account-service.js';
import type { Logger } from '../logger.js';
import { withTokenizerMargin } from '../billing/reserve-margin.js';
import { createUsage, type Usage } from '../billing/usage.js';
import { isConnectionFailure } from '../errors/connection-failure.js';
import type { Reservation } from './reserve-step.js';

/** How a request's reservation ends. */
export type Closing =
  | { readonly kind: 'settle'; readonly usage: Usage }
  | { readonly kind: 'release'; readonly reason: ReleaseReason }
  | { readonly kind: 'cut_off'; readonly usage: Usage };

/**
 * Closes the reservation: settles the real cost, releases it in full, or cuts it off. A store that cannot
 * be reached is waited for (backing off to a try every two seconds, for up to a minute), so a settlement
 * interrupted by a short outage still lands once the store is back; any other failure is tried three
 * times. If it still fails, the reservation is left to the sweeper, which expires it at its deadline (the
 * money returns to the organization; the loss is ours, never the client's).
 */
const STORE_OUTAGE_PATIENCE_MS = 60_000;
const MAX_BACKOFF_MS = 2_000;

export async function closeReservation(accounts: AccountService, model: CatalogModel, reservation: Reservation, closing: Closing, logger: Logger): Promise<void> {
  const { orgId, reservationId } = reservation;
  const command =
    closing.kind === 'release'
      ? ({ type: 'ReleaseReservation', reservationId, reason: closing.reason } as const)
      : closing.kind === 'settle'
        ? ({ type: 'SettleReservation', reservationId, cost: costOfUsage(model, closing.usage), usage: closing.usage } as const)
        : ({ type: 'CutOffReservation', reservationId, cost: costOfUsage(model, closing.usage), usage: closing.usage } as const);
  const giveUpAt = Date.now() + STORE_OUTAGE_PATIENCE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await accounts.execute(orgId, command, reservationId);
      return;
    } catch (error) {
      const waiting = isConnectionFailure(error) && Date.now() < giveUpAt;
      if (!waiting && attempt >= 3) {
        logger.error({ err: error, reservationId, orgId }, 'could not close a reservation; the sweeper will expire it');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** (attempt - 1), MAX_BACKOFF_MS)));
    }
  }
}

export function usageRecord(usage: Usage): Usage {
  return usage;
}

/**
 * The provider reported no usage (peer-pitfalls: spend recorded as zero): count it. The input is the
 * reserve's upper bound; the output is every string of the answer, tokenized with the same margin.
 */
export function countedResponseUsage(inputTokens: number, responseBody: unknown): Usage {
  return createUsage({ inputTokens, outputTokens: estimateInputTokens(responseBody, new Set(['id', 'model', 'object', 'type', 'role'])), counted: true });
}

/** The same for a stream: the provider events received, decoded, and their text, reasoning and tool arguments counted. */
function countedStreamUsage(inputTokens: number, providerFormat: FormatName, received: readonly SseEvent[]): Usage {
  const decoder = formatCodecs[providerFormat].createDecoder();
  const events: CanonicalStreamEvent[] = [];
  let text = '';
  const collect = () => {
    for (const event of events) {
      if (event.type === 'text_delta' || event.type === 'reasoning_delta') text += JSON.parse(event.text) as string;
      else if (event.type === 'tool_call_delta') text += JSON.parse(event.arguments) as string;
    }
    events.length = 0;
  };
  for (const event of received) {
    try {
      decoder.push(event, events);
    } catch {
      // a malformed provider event adds nothing countable
    }
    collect();
  }
  return createUsage({ inputTokens, outputTokens: withTokenizerMargin(countTokens(text, { disallowedSpecial: new Set() })), counted: true });
}

/**
 * What a stream is charged. A finished stream carries the provider's final usage. A stream that ended
 * early (provider error event, lost connection, client gone, key revoked) carries at most what the provider
 * said up front — a messages `message_start` has the input and an output of 1 — so the output received is
 * counted instead (spec 3.5: spending is counted by what was received; peer-pitfalls: spend recorded as zero).
 */
export function streamSettlementUsage(stream: ClientStream, inputTokens: number, providerFormat: FormatName, received: readonly SseEvent[]): Usage {
  const finished = stream.done && stream.error === undefined;
  if (stream.usage && finished) return usageRecord(stream.usage);
  const counted = countedStreamUsage(inputTokens, providerFormat, received);
  if (!stream.usage) return counted;
  const reported = usageRecord(stream.usage);
  return { ...reported, inputTokens: reported.inputTokens || counted.inputTokens, outputTokens: Math.max(reported.outputTokens ?? 0, counted.outputTokens ?? 0), counted: true };
}
