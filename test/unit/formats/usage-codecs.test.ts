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
