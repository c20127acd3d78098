import { numberField, recordOf, stringField } from './request-fields.js';
import { TINY_PNG_BASE64, answerText, answerUsage, type ScriptedAnswer } from './scripted-answer.js';

// Shapes: wire-formats.md section 4 ([OAI-SPEC] CreateEmbeddingResponse, ImagesResponse, CreateTranscriptionResponse*).

export const DEFAULT_EMBEDDING_DIMENSIONS = 8;
export const DEFAULT_TOKENS_PER_EMBEDDING_INPUT = 8;
export const DEFAULT_AUDIO_SECONDS = 3.2;

function embeddingInputs(input: unknown): number {
  if (typeof input === 'string') return 1;
  if (!Array.isArray(input) || input.length === 0) return 1;
  // int[] is one tokenised input; string[] and int[][] are one input each
  return typeof input[0] === 'number' ? 1 : input.length;
}

/** `encoding_format: "base64"` (the openai SDK's default) is little-endian float32 bytes in base64 ([OAI-NODE] embeddings.ts). */
export function embeddingsAnswer(answer: ScriptedAnswer, request: unknown): Record<string, unknown> {
  const inputs = embeddingInputs(recordOf(request)?.input);
  const dimensions = numberField(request, 'dimensions') ?? DEFAULT_EMBEDDING_DIMENSIONS;
  const base64 = (answer.embeddingEncoding ?? stringField(request, 'encoding_format')) === 'base64';
  const data = Array.from({ length: inputs }, (_, index) => {
    const vector = Array.from({ length: dimensions }, (_, d) => Math.round(Math.sin(index + d + 1) * 1e4) / 1e4);
    return { object: 'embedding', index, embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector };
  });
  const usage = answer.usage === null ? undefined : (answer.usage?.inputTokens ?? inputs * DEFAULT_TOKENS_PER_EMBEDDING_INPUT);
  return {
    object: 'list',
    data,
    model: answer.model ?? stringField(request, 'model') ?? 'fake-embedding',
    ...(usage === undefined ? {} : { usage: { prompt_tokens: usage, total_tokens: usage } }),
  };
}

/** GPT image models report token usage; `usage: null` gives the dall-e shape without it. */
export function imagesAnswer(answer: ScriptedAnswer, request: unknown): Record<string, unknown> {
  const count = numberField(request, 'n') ?? 1;
  const images = answer.images ?? Array.from({ length: count }, () => TINY_PNG_BASE64);
  const usage = answer.usage === null ? undefined : (answer.usage ?? { inputTokens: 12, outputTokens: 272 * images.length });
  return {
    created: Math.floor(Date.now() / 1000),
    data: images.map((b64_json) => ({ b64_json })),
    background: 'opaque',
    output_format: 'png',
    size: stringField(request, 'size') ?? '1024x1024',
    quality: 'medium',
    ...(usage
      ? {
          usage: {
            input_tokens: usage.inputTokens,
            input_tokens_details: { text_tokens: usage.inputTokens, image_tokens: 0 },
            output_tokens: usage.outputTokens,
            total_tokens: usage.inputTokens + usage.outputTokens,
          },
        }
      : {}),
  };
}

export interface TranscriptionAnswer {
  readonly contentType: string;
  readonly body: string;
}

/**
 * `response_format` decides the body: json (default) → `{text, usage}`, verbose_json → with `duration`,
 * text / srt / vtt → plain text without usage. whisper models report duration, the others tokens.
 */
export function transcriptionAnswer(answer: ScriptedAnswer, fields: unknown): TranscriptionAnswer {
  const text = answerText(answer);
  const format = stringField(fields, 'response_format') ?? 'json';
  const model = stringField(fields, 'model') ?? '';
  const seconds = answer.audioSeconds ?? (model.startsWith('whisper') ? DEFAULT_AUDIO_SECONDS : undefined);
  const tokens = answerUsage(answer);
  const usage =
    answer.usage === null
      ? undefined
      : seconds !== undefined
        ? { type: 'duration', seconds }
        : tokens && {
            type: 'tokens',
            input_tokens: tokens.inputTokens,
            input_token_details: { text_tokens: 0, audio_tokens: tokens.inputTokens },
            output_tokens: tokens.outputTokens,
            total_tokens: tokens.inputTokens + tokens.outputTokens,
          };
  switch (format) {
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', body: `${text}\n` };
    case 'srt':
      return { contentType: 'text/plain; charset=utf-8', body: `1\n00:00:00,000 --> 00:00:03,200\n${text}\n` };
    case 'vtt':
      return { contentType: 'text/plain; charset=utf-8', body: `WEBVTT\n\n00:00:00.000 --> 00:00:03.200\n${text}\n` };
    case 'verbose_json':
      return {
        contentType: 'application/json',
        body: JSON.stringify({ task: 'transcribe', language: 'english', duration: seconds ?? DEFAULT_AUDIO_SECONDS, text, segments: answer.transcriptSegments ?? [], ...(usage ? { usage } : {}) }),
      };
    default:
      return { contentType: 'application/json', body: JSON.stringify({ text, ...(usage ? { usage } : {}) }) };
  }
}
