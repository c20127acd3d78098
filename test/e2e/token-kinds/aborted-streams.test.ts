import { expect } from 'chai';
import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { CLIENT_FORMATS, CLIENT_PATHS, textRequest, type ClientFormat } from '../../support/text-format-client.js';
import { chargeOfOnlyRequest, KINDS_MODELS, MAX_TOKENS, modeOf } from './token-kinds-kit.js';

/**
 * A stream the client leaves mid-answer is charged for what was produced until then, not for the whole
 * answer nor for the reserve (peer-pitfalls.md: aborted streams billed in full): the provider call is
 * aborted and the request settled for the usage the provider had reported so far plus the output the
 * gateway had received, counted. For every client format, passed through and translated.
 *
 * The provider streams "one two three four five six" (6 o200k tokens, one delta a word) and pauses before
 * the rest of its answer; the client reads up to "six" and hangs up. Counted output: 6 × 5/4 (the
 * tokenizer margin) = 7.5, rounded up 8 tokens × 15,000 = 120,000 n$ (rates: token-kinds-kit.ts).
 *
 * - A messages provider has reported the input in `message_start` (2,000 uncached, 10,000 read, 3,000
 *   written of which 1,000 for an hour): 2,000 × 3,000 = 6,000,000; 10,000 × 300 = 3,000,000; 2,000 × 3,750
 *   = 7,500,000; 1,000 × 6,000 = 6,000,000; + 120,000 = 22,620,000 n$ (the whole answer, 400 output tokens,
 *   would be 28,500,000).
 * - A chat or responses provider reports usage only at the end: the input is the reserve's count of the
 *   request, 11 tokens for the chat and messages bodies ("user", "hello": 2 × 5/4 → 3, + 2 objects × 4),
 *   6 for the responses body ("hello": 1 × 5/4 → 2, + 4): 11 × 3,000 + 120,000 = 153,000 n$, or 6 × 3,000 +
 *   120,000 = 138,000 n$.
 */
const TEXT = 'one two three four five six';

/** Events the fake sends before it pauses: everything up to the last word. */
const EVENTS_BEFORE_PAUSE: Readonly<Record<FormatName, number>> = {
  // role chunk + 6 content chunks
  chat: 7,
  // message_start, content_block_start, ping + 6 text deltas
  messages: 9,
  // response.created, .in_progress, output_item.added, content_part.added + 6 text deltas
  responses: 10,
};

const CHARGE: Readonly<Record<FormatName, Readonly<Record<ClientFormat, bigint>>>> = {
  messages: { chat: 22_620_000n, messages: 22_620_000n, responses: 22_620_000n },
  chat: { chat: 153_000n, messages: 153_000n, responses: 138_000n },
  responses: { chat: 153_000n, messages: 153_000n, responses: 138_000n },
};

describe('token kinds: a stream the client leaves is charged for what was produced until then', function () {
  this.timeout(60_000);
  const current = useGatewayHarness();

  for (const provider of ['messages', 'chat', 'responses'] as const) {
    for (const client of CLIENT_FORMATS) {
      it(`${client} client, ${provider} provider (${modeOf(client, provider)}): ${CHARGE[provider][client].toLocaleString('en-US')} n$`, async () => {
        const harness = current();
        const { orgId, secret } = await harness.customer('1');
        const { model, fake } = KINDS_MODELS[provider];
        let resume!: () => void;
        const until = new Promise<void>((resolve) => (resume = resolve));
        harness[fake].enqueue({
          text: TEXT,
          usage: { inputTokens: 2_000, cachedInputTokens: 10_000, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 1_000, outputTokens: 400 },
          pauseAfterEvents: { count: EVENTS_BEFORE_PAUSE[provider], until },
        });
        const hangUp = new AbortController();
        const response = await fetch(`${harness.gateway.url}${CLIENT_PATHS[client]}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(client === 'messages' ? { 'x-api-key': secret } : { authorization: `Bearer ${secret}` }) },
          body: JSON.stringify(textRequest(client, model, { stream: true, maxTokens: MAX_TOKENS })),
          signal: hangUp.signal,
        });
        expect(response.status).to.equal(200);
        const reader = response.body!.getReader();
        let received = '';
        while (!received.includes('six"')) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended before the last word: ${received}`);
          received += new TextDecoder().decode(value);
        }
        hangUp.abort();
        try {
          expect(await chargeOfOnlyRequest(harness, orgId)).to.equal(CHARGE[provider][client]);
          expect(await harness[fake].lastRequest!.outcome, 'the provider call was aborted').to.equal('closed');
        } finally {
          resume();
        }
      });
    }
  }
});
