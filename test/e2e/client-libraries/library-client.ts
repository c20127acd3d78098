/**
 * What the client-library suites share: one small interface that each library (Vercel AI SDK providers,
 * LangChain chat models) implements with its own API, so that one list of cases (library-cases.ts) runs
 * against all of them. Each implementation uses the library the way its documentation shows; where a
 * library needs a setting to work with the gateway, the implementation sets it and docs/client-libraries.md
 * says so.
 */
import { z } from 'zod';

/** Token counts as the library reports them to the caller. */
export interface TokenUsage {
  readonly input: number;
  readonly output: number;
}

export interface TextAnswer {
  readonly text: string;
  readonly usage: TokenUsage;
}

export interface StreamedAnswer extends TextAnswer {
  /** How many text pieces the library handed over as they came. */
  readonly pieces: number;
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

export interface ToolCallAnswer {
  readonly calls: readonly ToolCall[];
  readonly usage: TokenUsage;
}

export interface ToolLoopAnswer {
  readonly text: string;
  /** What the library's run of the tool returned, sent back to the model. */
  readonly toolOutputs: readonly string[];
  /** Both steps together. */
  readonly usage: TokenUsage;
}

/** One library pointed at the gateway with one key, for one model. */
export interface LibraryModel {
  generate(prompt: string): Promise<TextAnswer>;
  stream(prompt: string): Promise<StreamedAnswer>;
  /** The model may call `get_weather`; the library returns the calls without running the tool. */
  callTool(prompt: string, stream: boolean): Promise<ToolCallAnswer>;
  /** The library runs `get_weather` (see `weatherReport`) and sends the result back for a second step. */
  toolLoop(prompt: string): Promise<ToolLoopAnswer>;
  /** An object of `CITY_SCHEMA`'s shape, by whatever means the library uses (absent: it has none). */
  structured?(prompt: string, stream: boolean): Promise<unknown>;
  /** Two user turns; the second request carries the first turn and its answer. */
  conversation(first: string, second: string): Promise<readonly [TextAnswer, TextAnswer]>;
}

export interface GatewayAddress {
  /** `http://127.0.0.1:<port>`, without `/v1`. */
  readonly url: string;
}

export interface ClientLibrary {
  /** As a reader knows it, e.g. `@ai-sdk/openai (responses)`. */
  readonly name: string;
  /** The gateway endpoint the library calls. */
  readonly format: 'chat' | 'messages' | 'responses';
  connect(gateway: GatewayAddress, apiKey: string, model: string): LibraryModel;
  /**
   * How the library asks for structured output from `model`: `undefined` when it asks for JSON text
   * (a response format), or the name of the tool it forces the model to call.
   */
  structuredOutputTool(model: string): string | undefined;
  /** The error class the library throws for each refusal, by name, and where it keeps the status. */
  readonly errors: { readonly [status in RefusalStatus]: string };
  errorStatus(error: unknown): number | undefined;
  /**
   * The counts a stream reports where the library reads them other than from the provider's final figures;
   * a field left out is only checked to be non-zero. Absent: the stream reports exactly what was charged.
   */
  streamedUsage?(charged: TokenUsage, model: string): Partial<TokenUsage>;
  /** Cases the library itself cannot pass, whatever the server: the reason, shown in the skipped case's title. */
  readonly broken?: { readonly structuredStream?: string };
}

export type RefusalStatus = 401 | 402 | 404;

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The current weather in a city.',
  input: z.object({ city: z.string() }),
} as const;

/** The structured answer every library is asked for. */
export const CITY_SCHEMA = z.object({ city: z.string(), country: z.string() });

/** What every library's `get_weather` returns: the test finds it in the provider's second request. */
export function weatherReport(city: string): string {
  return `Sunny and 21 degrees in ${city}.`;
}
