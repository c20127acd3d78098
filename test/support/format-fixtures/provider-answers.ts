import type { FormatName } from '../../../src/formats/canonical/format-name.js';
import type { JsonObject } from '../../../src/formats/json-value.js';
import type { AnswerSpec } from '../../../ops/provider-answers/answer-spec.js';

const USAGE = { input: 100, cached: 40, cacheWrite: 10, output: 20, reasoning: 0 } as const;

/**
 * The answers the format tests run over, each written in every provider's wire shape by
 * ops/provider-answers.
 */
export const ANSWERS: readonly AnswerSpec[] = [
  { name: 'plain text', text: ['Hello', ', ', 'wor', 'ld! "quoted" \\ back\nslash é 😀'], stop: 'end_turn', usage: USAGE },
  {
    name: 'several tool calls',
    text: ['Let me look ', 'both up.'],
    tools: [
      { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', args: ['', '{"loca', 'tion": "Par', 'is, FR", "unit": "c"}'] },
      { id: 'call_unLAR8MvFNptuiZK6K6HCy5k', name: 'get_time', args: ['{"timezone":', ' "Europe/Paris"}'] },
    ],
    stop: 'tool_use',
    usage: USAGE,
  },
  { name: 'stop sequence', text: ['1, 2, 3'], stop: 'stop_sequence', stopSequence: '4', usage: USAGE },
  { name: 'max tokens reached', text: ['This answer is cut'], stop: 'max_tokens', usage: USAGE },
  {
    name: 'reasoning',
    reasoning: { chunks: ['Let me think', ' about 2+2.'], signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
    text: ['2 + 2 = 4.'],
    stop: 'end_turn',
    usage: { ...USAGE, reasoning: 12 },
  },
  {
    name: 'reasoning only (max_tokens spent on thinking)',
    reasoning: { chunks: ['Step one', ', step two'], signature: 'EqQBCgIYAhIMsig2' },
    stop: 'max_tokens',
    usage: { ...USAGE, output: 20, reasoning: 20 },
  },
  { name: 'mid-stream error', text: ['Partial an', 'swer'], stop: 'end_turn', usage: USAGE, failMidStream: true },
];

/** A provider's own error answer (HTTP status and body), in its format. */
export const PROVIDER_ERRORS: Readonly<Record<FormatName, { status: number; body: JsonObject }>> = {
  chat: { status: 429, body: { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } } },
  messages: { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' } },
  responses: { status: 400, body: { error: { message: "Invalid 'input[0].content': empty array.", type: 'invalid_request_error', param: 'input[0].content', code: 'empty_array' } } },
};
