import { expect } from 'chai';
import { usageFromChat, usageToChat } from '../../../src/formats/chat/chat-usage.js';
import { usageFromMessages, usageToMessages } from '../../../src/formats/messages/messages-usage.js';
import { usageFromResponses, usageToResponses } from '../../../src/formats/responses/responses-usage.js';

describe('usage codecs', () => {
  it('tell a count the provider left out from a reported 0', () => {
    expect(usageFromChat({ prompt_tokens: 5, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 0 } })).to.deep.equal({
      version: 2,
      inputTokens: 5,
      cachedInputTokens: 0,
      outputTokens: 2,
    });
    expect(usageFromResponses({ input_tokens: 5, output_tokens: null })).to.deep.equal({ version: 2, inputTokens: 5 });
    expect(usageFromMessages({ output_tokens: 3 })).to.deep.equal({ version: 2, outputTokens: 3 });
  });

  it('add Anthropic cache counts to the input only when some input count was reported', () => {
    expect(usageFromMessages({ input_tokens: 4, cache_read_input_tokens: 10, output_tokens: 1 })).to.deep.include({ inputTokens: 14, cachedInputTokens: 10 });
    expect(usageFromMessages({ cache_creation_input_tokens: 6 })).to.deep.include({ inputTokens: 6, cacheWriteTokens: 6 });
  });

  it('take the LiteLLM cache-write count when the OpenRouter one is 0 or absent', () => {
    expect(usageFromChat({ prompt_tokens_details: { cache_write_tokens: 0 }, cache_creation_input_tokens: 9 })).to.deep.include({ cacheWriteTokens: 9 });
    expect(usageFromChat({ prompt_tokens_details: { cache_write_tokens: 0 } })).to.deep.include({ cacheWriteTokens: 0 });
    expect(usageFromChat({ prompt_tokens: 1 })).not.to.have.property('cacheWriteTokens');
  });

  it('show clients every count, 0 for one the provider left out', () => {
    const usage = usageFromChat({ prompt_tokens: 5, completion_tokens: 2 })!;
    expect(usageToChat(usage)).to.deep.equal({
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(usageToMessages(usage)).to.deep.equal({ input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 2 });
    expect(usageToResponses(usage)).to.deep.include({ input_tokens: 5, output_tokens: 2, total_tokens: 7 });
  });
});

describe('usage codecs: every token kind', () => {
  it('chat: cached, cache-write (OpenRouter or LiteLLM names) with its one-hour split, audio and reasoning inside the totals', () => {
    const litellm = {
      prompt_tokens: 16_500,
      completion_tokens: 900,
      total_tokens: 17_400,
      prompt_tokens_details: { cached_tokens: 10_000, cache_creation_tokens: 3_000, cache_creation_token_details: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 1_000 }, audio_tokens: 500 },
      completion_tokens_details: { reasoning_tokens: 300, audio_tokens: 200 },
    };
    expect(usageFromChat(litellm)).to.deep.equal({
      version: 2,
      inputTokens: 16_500,
      cachedInputTokens: 10_000,
      cacheWriteTokens: 3_000,
      cacheWrite1hTokens: 1_000,
      audioInputTokens: 500,
      outputTokens: 900,
      reasoningTokens: 300,
      audioOutputTokens: 200,
    });
    expect(usageFromChat({ prompt_tokens: 5_000, prompt_tokens_details: { cache_write_tokens: 3_000 } })).to.deep.include({ cacheWriteTokens: 3_000 });
    // only the split: the writes are its sum
    expect(usageFromChat({ prompt_tokens: 5_000, prompt_tokens_details: { cache_creation_token_details: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 700 } } })).to.deep.include({ cacheWriteTokens: 700, cacheWrite1hTokens: 700 });
    // LiteLLM's top-level cache read count when the OpenAI one is missing
    expect(usageFromChat({ prompt_tokens: 100, cache_read_input_tokens: 60 })).to.deep.include({ cachedInputTokens: 60 });
  });

  it('chat: reasoning inside completion_tokens is counted once; reasoning reported beside it is added', () => {
    // OpenAI: total = prompt + completion, the reasoning a part of the completion
    expect(usageFromChat({ prompt_tokens: 2_008, completion_tokens: 266, total_tokens: 2_274, completion_tokens_details: { reasoning_tokens: 261 } })).to.deep.include({ outputTokens: 266, reasoningTokens: 261 });
    // beside: the total adds the reasoning on top
    expect(usageFromChat({ prompt_tokens: 2_000, completion_tokens: 100, total_tokens: 2_400, completion_tokens_details: { reasoning_tokens: 300 } })).to.deep.include({ outputTokens: 400, reasoningTokens: 300 });
    // beside: more reasoning than output cannot be inside it (no total given)
    expect(usageFromChat({ prompt_tokens: 2_000, completion_tokens: 100, completion_tokens_details: { reasoning_tokens: 300 } })).to.deep.include({ outputTokens: 400 });
  });

  it('messages: the whole input is the sum, and cache_creation splits the writes into five-minute and one-hour ones', () => {
    const usage = {
      input_tokens: 2_000,
      cache_creation_input_tokens: 3_000,
      cache_read_input_tokens: 10_000,
      cache_creation: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 1_000 },
      output_tokens: 400,
      output_tokens_details: { thinking_tokens: 300 },
    };
    expect(usageFromMessages(usage)).to.deep.equal({
      version: 2,
      inputTokens: 15_000,
      cachedInputTokens: 10_000,
      cacheWriteTokens: 3_000,
      cacheWrite1hTokens: 1_000,
      outputTokens: 400,
      reasoningTokens: 300,
    });
    // the split alone gives the writes
    expect(usageFromMessages({ input_tokens: 10, cache_creation: { ephemeral_5m_input_tokens: 5, ephemeral_1h_input_tokens: 7 } })).to.deep.include({ inputTokens: 22, cacheWriteTokens: 12, cacheWrite1hTokens: 7 });
  });

  it('responses: cached, cache-write and audio details; reasoning inside output_tokens once, beside it added', () => {
    expect(
      usageFromResponses({
        input_tokens: 15_500,
        input_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, audio_tokens: 500 },
        output_tokens: 400,
        output_tokens_details: { reasoning_tokens: 300, audio_tokens: 50 },
        total_tokens: 15_900,
      }),
    ).to.deep.equal({ version: 2, inputTokens: 15_500, cachedInputTokens: 10_000, cacheWriteTokens: 3_000, audioInputTokens: 500, outputTokens: 400, reasoningTokens: 300, audioOutputTokens: 50 });
    expect(usageFromResponses({ input_tokens: 10, output_tokens: 5, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 35 })).to.deep.include({ outputTokens: 25 });
  });

  it('show a client of each format every kind the provider reported, the split as it was charged', () => {
    const usage = usageFromMessages({
      input_tokens: 2_000,
      cache_creation_input_tokens: 3_000,
      cache_read_input_tokens: 10_000,
      cache_creation: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 1_000 },
      output_tokens: 400,
      output_tokens_details: { thinking_tokens: 300 },
    })!;
    expect(usageToChat(usage)).to.deep.equal({
      prompt_tokens: 15_000,
      completion_tokens: 400,
      total_tokens: 15_400,
      prompt_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, cache_creation_token_details: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 1_000 } },
      completion_tokens_details: { reasoning_tokens: 300 },
    });
    expect(usageToMessages(usage)).to.deep.equal({
      input_tokens: 15_000,
      cache_creation_input_tokens: 3_000,
      cache_read_input_tokens: 10_000,
      cache_creation: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 1_000 },
      output_tokens: 400,
      output_tokens_details: { thinking_tokens: 300 },
    });
    expect(usageToResponses(usage)).to.deep.equal({
      input_tokens: 15_000,
      input_tokens_details: { cached_tokens: 10_000, cache_write_tokens: 3_000, cache_creation_token_details: { ephemeral_5m_input_tokens: 2_000, ephemeral_1h_input_tokens: 1_000 } },
      output_tokens: 400,
      output_tokens_details: { reasoning_tokens: 300 },
      total_tokens: 15_400,
    });
    const audio = usageFromChat({ prompt_tokens: 2_500, completion_tokens: 400, prompt_tokens_details: { audio_tokens: 500 }, completion_tokens_details: { audio_tokens: 200 } })!;
    expect(usageToChat(audio)).to.deep.include({ prompt_tokens_details: { cached_tokens: 0, audio_tokens: 500 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 200 } });
    expect(usageToResponses(audio)).to.deep.include({ input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0, audio_tokens: 500 }, output_tokens_details: { reasoning_tokens: 0, audio_tokens: 200 } });
    // writes of unknown duration are shown (and charged) as five-minute writes
    const unknown = usageFromChat({ prompt_tokens: 5_000, prompt_tokens_details: { cache_write_tokens: 3_000 } })!;
    expect(usageToMessages(unknown)).to.deep.include({ cache_creation: { ephemeral_5m_input_tokens: 3_000, ephemeral_1h_input_tokens: 0 } });
  });
});
