/**
 * Usage the provider reports for the side APIs, in the gateway's own terms. Text formats are not here:
 * their usage is mapped by the format layer (src/formats).
 */
export interface EmbeddingsUsage {
  readonly inputTokens: number;
}

export interface ImagesUsage {
  /** Images in the answer: what a per-image price is charged on. */
  readonly images: number;
  readonly inputTokens: number | undefined;
  readonly outputTokens: number | undefined;
}

/** Transcription models report tokens (gpt-4o-transcribe) or seconds of audio (whisper-1, verbose_json). */
export type TranscriptionUsage =
  | { readonly type: 'tokens'; readonly inputTokens: number; readonly outputTokens: number; readonly audioTokens: number | undefined }
  | { readonly type: 'duration'; readonly seconds: number };

/**
 * Reads usage from a parsed JSON answer body; `undefined` when the provider reported none (the gateway
 * then counts what it can, DESIGN 6).
 */
export interface SideApiUsageExtractor {
  embeddings(body: unknown): EmbeddingsUsage | undefined;
  images(body: unknown): ImagesUsage | undefined;
  transcription(body: unknown): TranscriptionUsage | undefined;
}

/** For kinds with no side APIs (Anthropic). */
export const noSideApiUsage: SideApiUsageExtractor = {
  embeddings: () => undefined,
  images: () => undefined,
  transcription: () => undefined,
};
