/**
 * The demo's catalog: two models on the local demo providers, priced like their namesakes, so that what a
 * request costs can be checked by hand (12 input and 7 output tokens on demo-openai/gpt-4o-mini:
 * 12 × $0.15/M + 7 × $0.60/M = $0.000006).
 */
export const DEMO_MODEL = 'demo-openai/gpt-4o-mini';
/** The model id names its provider: `<provider>/<model>`. */
export const DEMO_PROVIDER_KEY_ENV = 'DEMO_PROVIDER_KEY';

const MODELS = [
  { id: DEMO_MODEL, upstream: 'gpt-4o-mini', input: '0.15', output: '0.60', maxOutput: 16384 },
  { id: 'demo-anthropic/claude-sonnet', upstream: 'claude-sonnet-4-5', input: '3.00', output: '15.00', maxOutput: 64000 },
] as const;

export function demoCatalog(openaiUrl: string, anthropicUrl: string): string {
  return [
    '# Written by `npm run demo`: models served by the local demo providers.',
    'providers:',
    `  demo-openai: { kind: openai, base_url: "${openaiUrl}", api_key_env: ${DEMO_PROVIDER_KEY_ENV} }`,
    `  demo-anthropic: { kind: anthropic, base_url: "${anthropicUrl}", api_key_env: ${DEMO_PROVIDER_KEY_ENV} }`,
    'models:',
    ...MODELS.flatMap((model) => [
      `  - id: ${model.id}`,
      `    upstream: ${model.upstream}`,
      '    category: text',
      `    max_output_tokens: ${model.maxOutput}`,
      `    pricing: { input_per_mtok: "${model.input}", output_per_mtok: "${model.output}" }`,
    ]),
    '',
  ].join('\n');
}

export function demoModelsLine(): string {
  return MODELS.map((model) => `${model.id} ($${model.input} / $${model.output} per million input / output tokens)`).join(', ');
}
