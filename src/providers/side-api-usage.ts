import type { Usage } from '../billing/usage.js';

/**
 * Reads the usage the provider reports for the side APIs from a parsed JSON answer body, as the gateway's
 * Usage: embeddings report input tokens; images the images made (what a per-image price is charged on) and,
 * on GPT image models, tokens; transcription models tokens (gpt-4o-transcribe) or seconds of audio
 * (whisper-1, verbose_json). `undefined` when the provider reported none (the gateway then counts what it
 * can, DESIGN 6). Text formats are not here: their usage is mapped by the format layer (src/formats).
 */
export interface SideApiUsageExtractor {
  embeddings(body: unknown): Usage | undefined;
  images(body: unknown): Usage | undefined;
  transcription(body: unknown): Usage | undefined;
}

/** For kinds with no side APIs (Anthropic). */
export const noSideApiUsage: SideApiUsageExtractor = {
  embeddings: () => undefined,
  images: () => undefined,
  transcription: () => undefined,
};
