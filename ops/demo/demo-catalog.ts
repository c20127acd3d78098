/**
 * The demo's catalog: two text models and a video model on the local demo providers, priced like their
 * namesakes, so that what a request costs can be checked by hand (12 input and 7 output tokens on
 * demo-openai/gpt-4o-mini: 12 × $0.15/M + 7 × $0.60/M = $0.000006; a 4-second video on demo-openai/sora-2:
 * 4 × $0.10 = $0.40).
 */
export const DEMO_MODEL = 'demo-openai/gpt-4o-mini';
/** A video model on the demo OpenAI provider, which makes small MP4 files. */
export const DEMO_VIDEO_MODEL = 'demo-openai/sora-2';
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
    `  - id: ${DEMO_VIDEO_MODEL}`,
    '    upstream: sora-2',
    '    category: video',
    '    pricing: { per_video_second: "0.10" }',
    '    video: { seconds: [4, 8], sizes: ["720x1280", "1280x720"] }',
    '',
  ].join('\n');
}

export function demoModelsLine(): string {
  const text = MODELS.map((model) => `${model.id} ($${model.input} / $${model.output} per million input / output tokens)`);
  return [...text, `${DEMO_VIDEO_MODEL} ($0.10 a second of video)`].join(', ');
}
