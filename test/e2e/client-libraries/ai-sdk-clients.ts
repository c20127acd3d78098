import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, Output, stepCountIs, streamText, tool, type LanguageModel, type LanguageModelUsage, type ModelMessage } from 'ai';
import {
  CITY_SCHEMA,
  WEATHER_TOOL,
  weatherReport,
  type ClientLibrary,
  type GatewayAddress,
  type LibraryModel,
  type TokenUsage,
} from './library-client.js';

// The AI SDK prints a warning for every setting a provider maps loosely (e.g. @ai-sdk/anthropic caps an
// unknown model's output at 4096 tokens); the tests check the requests themselves.
globalThis.AI_SDK_LOG_WARNINGS = false;

type ProviderOptions = NonNullable<Parameters<typeof generateText>[0]['providerOptions']>;
type ModelFactory = (gateway: GatewayAddress, apiKey: string, model: string) => LanguageModel;

const usageOf = (usage: LanguageModelUsage): TokenUsage => ({ input: usage.inputTokens ?? 0, output: usage.outputTokens ?? 0 });

/** The tool as the model sees it: the SDK returns its calls. */
const weatherTool = tool({ description: WEATHER_TOOL.description, inputSchema: WEATHER_TOOL.input });
/** The same tool with a body: the SDK runs it and sends the result back. */
const runnableWeatherTool = tool({ ...weatherTool, execute: async ({ city }) => weatherReport(city) });

/**
 * Streams end with an `error` part rather than a throw (`streamText` never rejects): the part carries the
 * same `APICallError` a non-streamed call throws, and a caller reading `fullStream` sees it so.
 */
async function drain(stream: AsyncIterable<{ type: string; text?: string; error?: unknown }>): Promise<number> {
  let pieces = 0;
  for await (const part of stream) {
    if (part.type === 'error') throw part.error;
    if (part.type === 'text-delta' && part.text) pieces++;
  }
  return pieces;
}

function aiSdkModel(model: LanguageModel, providerOptions: ProviderOptions | undefined): LibraryModel {
  const common = { model, maxRetries: 0, ...(providerOptions ? { providerOptions } : {}) };
  // streamText prints a stream's error unless given onError; drain() raises it to the caller instead
  const streaming = { ...common, onError: () => undefined };
  return {
    async generate(prompt) {
      const result = await generateText({ ...common, prompt });
      return { text: result.text, usage: usageOf(result.usage) };
    },
    async stream(prompt) {
      const result = streamText({ ...streaming, prompt });
      const pieces = await drain(result.fullStream);
      return { text: await result.text, usage: usageOf(await result.totalUsage), pieces };
    },
    async callTool(prompt, stream) {
      const tools = { [WEATHER_TOOL.name]: weatherTool };
      const toCalls = (calls: ReadonlyArray<{ toolCallId: string; toolName: string; input: unknown }>) =>
        calls.map((call) => ({ id: call.toolCallId, name: call.toolName, input: call.input }));
      if (!stream) {
        const result = await generateText({ ...common, prompt, tools });
        return { calls: toCalls(result.toolCalls), usage: usageOf(result.usage) };
      }
      const result = streamText({ ...streaming, prompt, tools });
      await drain(result.fullStream);
      return { calls: toCalls(await result.toolCalls), usage: usageOf(await result.totalUsage) };
    },
    async toolLoop(prompt) {
      const result = await generateText({ ...common, prompt, tools: { [WEATHER_TOOL.name]: runnableWeatherTool }, stopWhen: stepCountIs(2) });
      const toolOutputs = result.steps.flatMap((step) => step.toolResults.map((toolResult) => String(toolResult.output)));
      return { text: result.text, toolOutputs, usage: usageOf(result.totalUsage) };
    },
    async structured(prompt, stream) {
      const output = Output.object({ schema: CITY_SCHEMA });
      if (!stream) return (await generateText({ ...common, prompt, output })).output;
      const result = streamText({ ...streaming, prompt, output });
      await drain(result.fullStream);
      return result.output;
    },
    async conversation(first, second) {
      const messages: ModelMessage[] = [{ role: 'user', content: first }];
      const one = await generateText({ ...common, messages });
      messages.push(...one.response.messages, { role: 'user', content: second });
      const two = await generateText({ ...common, messages });
      return [
        { text: one.text, usage: usageOf(one.usage) },
        { text: two.text, usage: usageOf(two.usage) },
      ];
    },
  };
}

function aiSdkLibrary(
  name: string,
  format: ClientLibrary['format'],
  create: ModelFactory,
  options: { providerOptions?: ProviderOptions; structuredOutputTool?: (model: string) => string | undefined } = {},
): ClientLibrary {
  return {
    name,
    format,
    connect: (gateway, apiKey, model) => aiSdkModel(create(gateway, apiKey, model), options.providerOptions),
    structuredOutputTool: options.structuredOutputTool ?? (() => undefined),
    // One class for every HTTP refusal, with the status in `statusCode`.
    errors: { 401: 'APICallError', 402: 'APICallError', 404: 'APICallError' },
    errorStatus: (error) => (APICallError.isInstance(error) ? error.statusCode : undefined),
  };
}

/** The gateway's OpenAI-style endpoints live under `/v1`, as the SDKs' default base URLs do. */
const v1 = (gateway: GatewayAddress) => `${gateway.url}/v1`;

export const AI_SDK_OPENAI_CHAT = aiSdkLibrary('@ai-sdk/openai (chat)', 'chat', (gateway, apiKey, model) =>
  createOpenAI({ baseURL: v1(gateway), apiKey }).chat(model),
);

/**
 * The provider's default mode. It stores answers at OpenAI unless told not to, and then sends earlier
 * answers back as `item_reference` items, which a stateless gateway refuses: `store: false` makes it send
 * the items in full.
 */
export const RESPONSES_STATELESS: ProviderOptions = { openai: { store: false } };

export const AI_SDK_OPENAI_RESPONSES = aiSdkLibrary(
  '@ai-sdk/openai (responses)',
  'responses',
  (gateway, apiKey, model) => createOpenAI({ baseURL: v1(gateway), apiKey })(model),
  { providerOptions: RESPONSES_STATELESS },
);

export const AI_SDK_ANTHROPIC = aiSdkLibrary(
  '@ai-sdk/anthropic',
  'messages',
  (gateway, apiKey, model) => createAnthropic({ baseURL: v1(gateway), apiKey })(model),
  // Claude 4.5 models get a native JSON schema format; a model the provider does not know is forced to
  // call a tool named `json` instead.
  { structuredOutputTool: (model) => (model.includes('claude') ? undefined : 'json') },
);

/**
 * `includeUsage` asks for the usage chunk of a stream (the gateway shows it only to a client that asks);
 * `supportsStructuredOutputs` lets the provider send a JSON schema rather than plain JSON mode.
 */
export const AI_SDK_OPENAI_COMPATIBLE = aiSdkLibrary('@ai-sdk/openai-compatible', 'chat', (gateway, apiKey, model) =>
  createOpenAICompatible({ name: 'gateway', baseURL: v1(gateway), apiKey, includeUsage: true, supportsStructuredOutputs: true })(model),
);

export const AI_SDK_LIBRARIES: readonly ClientLibrary[] = [AI_SDK_OPENAI_CHAT, AI_SDK_OPENAI_RESPONSES, AI_SDK_ANTHROPIC, AI_SDK_OPENAI_COMPATIBLE];
