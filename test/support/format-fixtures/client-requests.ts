import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import type { JsonObject } from '../../../src/formats/json-value.js';

/**
 * The same conversations as each client format sends them. Typed with the official SDKs' request params,
 * so a fixture in a wrong shape fails `tsc`. `expected` is the format-independent flat view
 * (request-views.ts) every provider rendering must show.
 */
export const REQUEST_SCENARIOS = ['plain text', 'system prompts', 'multi-turn', 'tool calls and results', 'image input', 'stop sequence', 'max tokens', 'reasoning'] as const;
export type RequestScenario = (typeof REQUEST_SCENARIOS)[number];

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const IMAGE_URL = 'https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg';
const WEATHER_SCHEMA = { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] };
const TIME_SCHEMA = { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] };

type Chat = OpenAI.Chat.Completions.ChatCompletionCreateParams;
type Messages = Anthropic.MessageCreateParams;
type Responses = OpenAI.Responses.ResponseCreateParams;

function chat(scenario: RequestScenario): Chat {
  const base = { model: 'anthropic/claude-opus-4-8' };
  switch (scenario) {
    case 'plain text':
      return { ...base, messages: [{ role: 'user', content: 'Hello' }] };
    case 'system prompts':
      return {
        ...base,
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'developer', content: 'Answer in French.' },
          { role: 'user', content: 'Hello' },
          { role: 'system', content: 'Never use emoji.' },
        ],
      };
    case 'multi-turn':
      return {
        ...base,
        messages: [
          { role: 'user', content: 'My name is Ada.' },
          { role: 'assistant', content: 'Nice to meet you, Ada.' },
          { role: 'user', content: [{ type: 'text', text: 'What is my name?' }] },
        ],
      };
    case 'tool calls and results':
      return {
        ...base,
        tools: [
          { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: WEATHER_SCHEMA } },
          { type: 'function', function: { name: 'get_time', parameters: TIME_SCHEMA } },
        ],
        tool_choice: 'required',
        messages: [
          { role: 'user', content: 'Weather and time in Paris?' },
          {
            role: 'assistant',
            content: 'Checking both.',
            tool_calls: [
              { id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris, FR"}' } },
              { id: 'call_unLAR8MvFNptuiZK6K6HCy5k', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '18°C, sunny' },
          { role: 'tool', tool_call_id: 'call_unLAR8MvFNptuiZK6K6HCy5k', content: [{ type: 'text', text: '14:05' }] },
        ],
      };
    case 'image input':
      return {
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare these.' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
              { type: 'image_url', image_url: { url: IMAGE_URL, detail: 'high' } },
            ],
          },
        ],
      };
    case 'stop sequence':
      return { ...base, messages: [{ role: 'user', content: 'Count' }], stop: ['4'] };
    case 'max tokens':
      return { ...base, messages: [{ role: 'user', content: 'Essay' }], max_completion_tokens: 256 };
    case 'reasoning':
      return { ...base, messages: [{ role: 'user', content: '2+2?' }], reasoning_effort: 'high', max_completion_tokens: 8000 };
  }
}

function messages(scenario: RequestScenario): Messages {
  const base = { model: 'openai/gpt-5.4', max_tokens: 4096 };
  switch (scenario) {
    case 'plain text':
      return { ...base, messages: [{ role: 'user', content: 'Hello' }] };
    case 'system prompts':
      return {
        ...base,
        system: [
          { type: 'text', text: 'You are terse.' },
          { type: 'text', text: 'Answer in French.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Never use emoji.' },
        ],
        messages: [{ role: 'user', content: 'Hello' }],
      };
    case 'multi-turn':
      return {
        ...base,
        messages: [
          { role: 'user', content: 'My name is Ada.' },
          { role: 'assistant', content: [{ type: 'text', text: 'Nice to meet you, Ada.' }] },
          { role: 'user', content: 'What is my name?' },
        ],
      };
    case 'tool calls and results':
      return {
        ...base,
        tools: [
          { name: 'get_weather', description: 'Weather now', input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
          { name: 'get_time', input_schema: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } },
        ],
        tool_choice: { type: 'any' },
        messages: [
          { role: 'user', content: 'Weather and time in Paris?' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking both.' },
              { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { location: 'Paris, FR' } },
              { type: 'tool_use', id: 'call_unLAR8MvFNptuiZK6K6HCy5k', name: 'get_time', input: { timezone: 'Europe/Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '18°C, sunny' },
              { type: 'tool_result', tool_use_id: 'call_unLAR8MvFNptuiZK6K6HCy5k', content: [{ type: 'text', text: '14:05' }] },
            ],
          },
        ],
      };
    case 'image input':
      return {
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare these.' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
              { type: 'image', source: { type: 'url', url: IMAGE_URL } },
            ],
          },
        ],
      };
    case 'stop sequence':
      return { ...base, messages: [{ role: 'user', content: 'Count' }], stop_sequences: ['4'] };
    case 'max tokens':
      return { ...base, max_tokens: 256, messages: [{ role: 'user', content: 'Essay' }] };
    case 'reasoning':
      return { ...base, max_tokens: 8000, thinking: { type: 'enabled', budget_tokens: 4096 }, messages: [{ role: 'user', content: '2+2?' }] };
  }
}

function responses(scenario: RequestScenario): Responses {
  const base = { model: 'anthropic/claude-opus-4-8' };
  switch (scenario) {
    case 'plain text':
      return { ...base, input: 'Hello' };
    case 'system prompts':
      return {
        ...base,
        instructions: 'You are terse.',
        input: [
          { role: 'developer', content: 'Answer in French.' },
          { role: 'user', content: 'Hello' },
          { role: 'system', content: [{ type: 'input_text', text: 'Never use emoji.' }] },
        ],
      };
    case 'multi-turn':
      return {
        ...base,
        input: [
          { role: 'user', content: 'My name is Ada.' },
          { role: 'assistant', content: 'Nice to meet you, Ada.' },
          { role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] },
        ],
      };
    case 'tool calls and results':
      return {
        ...base,
        tools: [
          { type: 'function', name: 'get_weather', description: 'Weather now', parameters: WEATHER_SCHEMA, strict: false },
          { type: 'function', name: 'get_time', parameters: TIME_SCHEMA, strict: false },
        ],
        tool_choice: 'required',
        input: [
          { role: 'user', content: 'Weather and time in Paris?' },
          { role: 'assistant', content: 'Checking both.' },
          { type: 'function_call', call_id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"location":"Paris, FR"}' },
          { type: 'function_call', call_id: 'call_unLAR8MvFNptuiZK6K6HCy5k', name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
          { type: 'function_call_output', call_id: 'toolu_01A09q90qw90lq917835lq9', output: '18°C, sunny' },
          { type: 'function_call_output', call_id: 'call_unLAR8MvFNptuiZK6K6HCy5k', output: [{ type: 'input_text', text: '14:05' }] },
        ],
      };
    case 'image input':
      return {
        ...base,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Compare these.' },
              { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
              { type: 'input_image', image_url: IMAGE_URL, detail: 'high' },
            ],
          },
        ],
      };
    case 'stop sequence':
      // Responses has no stop sequences: the nearest request is a plain one.
      return { ...base, input: 'Count' };
    case 'max tokens':
      return { ...base, input: 'Essay', max_output_tokens: 256 };
    case 'reasoning':
      return { ...base, input: '2+2?', reasoning: { effort: 'high' }, max_output_tokens: 8000 };
  }
}

export function clientRequest(format: FormatName, scenario: RequestScenario): JsonObject {
  switch (format) {
    case 'chat':
      return chat(scenario) as unknown as JsonObject;
    case 'messages':
      return messages(scenario) as unknown as JsonObject;
    case 'responses':
      return responses(scenario) as unknown as JsonObject;
  }
}

export const FIXTURE_CONSTANTS = { PNG, IMAGE_URL, WEATHER_SCHEMA, TIME_SCHEMA } as const;
