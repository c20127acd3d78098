import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { CITY_SCHEMA, WEATHER_TOOL, weatherReport, type ClientLibrary, type GatewayAddress, type LibraryModel, type TokenUsage } from './library-client.js';

type ChatModelFactory = (gateway: GatewayAddress, apiKey: string, model: string) => BaseChatModel;

const weatherTool = tool(async ({ city }: { city: string }) => weatherReport(city), {
  name: WEATHER_TOOL.name,
  description: WEATHER_TOOL.description,
  schema: WEATHER_TOOL.input,
});

/** The name ChatAnthropic gives the tool it forces for structured output. */
const STRUCTURED_TOOL = 'city_answer';

const usageOf = (message: AIMessage): TokenUsage => ({ input: message.usage_metadata?.input_tokens ?? 0, output: message.usage_metadata?.output_tokens ?? 0 });
const sum = (a: TokenUsage, b: TokenUsage): TokenUsage => ({ input: a.input + b.input, output: a.output + b.output });
const callsOf = (message: AIMessage) => (message.tool_calls ?? []).map((call) => ({ id: call.id ?? '', name: call.name, input: call.args }));

/** A stream's chunks merged the way LangChain documents (`concat`), and how many carried text. */
async function gather(chunks: AsyncIterable<AIMessageChunk>): Promise<{ message: AIMessageChunk; pieces: number }> {
  let message: AIMessageChunk | undefined;
  let pieces = 0;
  for await (const chunk of chunks) {
    if (chunk.text) pieces++;
    message = message ? message.concat(chunk) : chunk;
  }
  if (!message) throw new Error('the stream ended without a chunk');
  return { message, pieces };
}

function withTools(model: BaseChatModel) {
  if (!model.bindTools) throw new Error('this chat model cannot bind tools');
  return model.bindTools([weatherTool]);
}

function langChainModel(model: BaseChatModel): LibraryModel {
  return {
    async generate(prompt) {
      const message = await model.invoke(prompt);
      return { text: message.text, usage: usageOf(message) };
    },
    async stream(prompt) {
      const { message, pieces } = await gather(await model.stream(prompt));
      return { text: message.text, usage: usageOf(message), pieces };
    },
    async callTool(prompt, stream) {
      const bound = withTools(model);
      const message = stream ? (await gather(await bound.stream(prompt))).message : await bound.invoke(prompt);
      return { calls: callsOf(message), usage: usageOf(message) };
    },
    async toolLoop(prompt) {
      // LangChain's own loop, as its tool-calling guide writes it: run each call, answer with ToolMessages.
      const bound = withTools(model);
      const messages: BaseMessage[] = [new HumanMessage(prompt)];
      const first = await bound.invoke(messages);
      messages.push(first);
      const toolOutputs: string[] = [];
      for (const call of first.tool_calls ?? []) {
        const result = await weatherTool.invoke(call);
        toolOutputs.push(String(result.content));
        messages.push(result);
      }
      const second = await bound.invoke(messages);
      return { text: second.text, toolOutputs, usage: sum(usageOf(first), usageOf(second)) };
    },
    async structured(prompt, stream) {
      const structured = model.withStructuredOutput(CITY_SCHEMA, { name: STRUCTURED_TOOL });
      if (!stream) return structured.invoke(prompt);
      let last: unknown;
      for await (const partial of await structured.stream(prompt)) last = partial;
      return last;
    },
    async conversation(first, second) {
      const one = await model.invoke([new HumanMessage(first)]);
      const two = await model.invoke([new HumanMessage(first), one, new HumanMessage(second)]);
      return [
        { text: one.text, usage: usageOf(one) },
        { text: two.text, usage: usageOf(two) },
      ];
    },
  };
}

/** LangChain's chat models raise the provider SDK's error classes, with the HTTP status in `status`. */
function statusOf(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number' ? error.status : undefined;
}

function langChainLibrary(name: string, format: ClientLibrary['format'], create: ChatModelFactory, extra: Partial<ClientLibrary> = {}): ClientLibrary {
  return {
    name,
    format,
    connect: (gateway, apiKey, model) => langChainModel(create(gateway, apiKey, model)),
    // JSON schema as the response format, for any model name
    structuredOutputTool: () => undefined,
    // The SDKs have classes for 401 and 404; a 402 is their base APIError.
    errors: { 401: 'AuthenticationError', 402: 'APIError', 404: 'NotFoundError' },
    errorStatus: statusOf,
    ...extra,
  };
}

/** `configuration` is handed to the openai SDK: its `baseURL` includes `/v1`. */
const chatOpenAi = (options: { useResponsesApi: boolean }): ChatModelFactory => (gateway, apiKey, model) =>
  new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0, ...options });

export const LANGCHAIN_OPENAI_CHAT = langChainLibrary('@langchain/openai ChatOpenAI (chat)', 'chat', chatOpenAi({ useResponsesApi: false }));

export const LANGCHAIN_OPENAI_RESPONSES = langChainLibrary('@langchain/openai ChatOpenAI (useResponsesApi)', 'responses', chatOpenAi({ useResponsesApi: true }));

export const LANGCHAIN_ANTHROPIC = langChainLibrary(
  '@langchain/anthropic ChatAnthropic',
  'messages',
  // `anthropicApiUrl` is the origin: the SDK adds `/v1/messages` itself.
  (gateway, apiKey, model) => new ChatAnthropic({ model, apiKey, anthropicApiUrl: gateway.url, maxRetries: 0 }),
  {
    structuredOutputTool: () => STRUCTURED_TOOL,
    streamedUsage(charged, model) {
      // ChatAnthropic takes the input count from `message_start` alone and adds the output counts of
      // `message_start` and `message_delta`. Anthropic itself starts with output_tokens 1, so a stream from
      // a Claude model shows one output token more than was charged (against the API as well). From a
      // provider of another format the gateway starts with its own count of the input, the upper bound the
      // reserve used, as the provider tells the real count only at the end.
      return model.startsWith('anthropic/') ? { input: charged.input, output: charged.output + 1 } : { output: charged.output };
    },
    broken: {
      // Its parser reads the arguments from the merged message's tool_use block, but @langchain/core keeps
      // the input_json_delta chunks beside that block instead of merging them in: the parser gets "".
      // Anthropic's own stream has the same shape, so this fails against the API as well.
      structuredStream: 'ChatAnthropic 1.5.11 with @langchain/core 1.4.0 parses an empty tool input',
    },
  },
);

export const LANGCHAIN_LIBRARIES: readonly ClientLibrary[] = [LANGCHAIN_OPENAI_CHAT, LANGCHAIN_OPENAI_RESPONSES, LANGCHAIN_ANTHROPIC];
