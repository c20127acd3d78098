import { z } from 'zod';
import { createUsage, type Usage } from '../../billing/usage.js';
import type { SideApiUsageExtractor } from '../side-api-usage.js';

const count = z.number().int().nonnegative();

// [OAI-SPEC] CreateEmbeddingResponse.usage; some compatible servers send only total_tokens
const embeddingsSchema = z.object({
  usage: z.object({ prompt_tokens: count.optional(), total_tokens: count.optional() }).nullish(),
});

// [OAI-SPEC] ImagesResponse: GPT image models report token usage, dall-e and most compatible servers do not
const imagesSchema = z.object({
  data: z.array(z.unknown()).nullish(),
  usage: z.object({ input_tokens: count.optional(), output_tokens: count.optional() }).nullish(),
});

// [OAI-SPEC] CreateTranscriptionResponseJson / VerboseJson: usage is tokens or duration; older verbose_json only `duration`
const transcriptionSchema = z.object({
  usage: z
    .discriminatedUnion('type', [
      z.object({
        type: z.literal('tokens'),
        input_tokens: count,
        output_tokens: count,
        input_token_details: z.object({ audio_tokens: count.optional() }).nullish(),
      }),
      z.object({ type: z.literal('duration'), seconds: z.number().nonnegative() }),
    ])
    .nullish()
    .catch(undefined),
  duration: z.number().nonnegative().nullish(),
});

export function openAiEmbeddingsUsage(body: unknown): Usage | undefined {
  const parsed = embeddingsSchema.safeParse(body);
  const tokens = parsed.success ? (parsed.data.usage?.prompt_tokens ?? parsed.data.usage?.total_tokens) : undefined;
  return tokens === undefined ? undefined : createUsage({ inputTokens: tokens });
}

/** The images are counted from the answer; their tokens only when the model reports them. */
export function openAiImagesUsage(body: unknown): Usage | undefined {
  const parsed = imagesSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const { data, usage } = parsed.data;
  if (!data && !usage) return undefined;
  return createUsage({ images: data?.length ?? 0, inputTokens: usage?.input_tokens, outputTokens: usage?.output_tokens });
}

export function openAiTranscriptionUsage(body: unknown): Usage | undefined {
  const parsed = transcriptionSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const { usage, duration } = parsed.data;
  if (usage?.type === 'tokens') {
    return createUsage({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, audioInputTokens: usage.input_token_details?.audio_tokens });
  }
  if (usage?.type === 'duration') return createUsage({ audioSeconds: usage.seconds });
  return duration === undefined || duration === null ? undefined : createUsage({ audioSeconds: duration });
}

export const openAiSideUsage: SideApiUsageExtractor = {
  embeddings: openAiEmbeddingsUsage,
  images: openAiImagesUsage,
  transcription: openAiTranscriptionUsage,
};
