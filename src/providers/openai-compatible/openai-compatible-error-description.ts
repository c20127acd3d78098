import { z } from 'zod';
import { describeOpenAiShapedError } from '../openai/openai-error-description.js';
import { bodyExcerpt, parseJsonBody, shorten } from '../json-body.js';

// Shapes seen from compatible servers besides OpenAI's: {"error": "…"} (Ollama, llama.cpp),
// {"detail": "…"} (FastAPI-based servers such as vLLM's 404s), {"message": "…"}.
const looseErrorSchema = z.union([
  z.object({ error: z.string() }).transform((value) => value.error),
  z.object({ detail: z.string() }).transform((value) => value.detail),
  z.object({ message: z.string() }).transform((value) => value.message),
]);

export function describeOpenAiCompatibleError(status: number, body: Buffer): string {
  const json = parseJsonBody(body);
  const openAiShaped = describeOpenAiShapedError(status, json);
  if (openAiShaped !== undefined) return openAiShaped;
  const loose = looseErrorSchema.safeParse(json);
  return loose.success ? `${status}: ${shorten(loose.data)}` : `${status}: ${bodyExcerpt(body)}`;
}
