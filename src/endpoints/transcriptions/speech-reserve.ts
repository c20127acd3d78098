import { parseFile } from 'music-metadata';
import { createUsage, rateLimitedTokens } from '../../billing/usage.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import { promptTokensBound } from '../../catalog/reserve-estimate.js';
import type { ReserveEstimate } from '../endpoint-spec.js';
import type { UploadedFile } from '../multipart/multipart-upload.js';

/**
 * The reserve of a transcription, made before the provider has said how long the audio is.
 *
 * The upload's size bounds its duration at the bitrate the gateway reckons with: 16 kbit/s (2,000 bytes
 * a second). A 1 MiB file reserves 525 seconds; the 26 MiB limit caps that bound at 13,632 seconds.
 * Speech codecs go lower (Opus down to 6 kbit/s), so the duration the file's container declares in its
 * header (WAV, MP3 with a Xing/VBRI frame, MP4/M4A, FLAC, Ogg, WebM with a duration; read by
 * `music-metadata` without decoding the audio) raises the reserve to it where it is longer. The header is
 * the client's claim, never physics: it can raise the reserve, never lower it below the size bound, and it
 * counts at most what the file could hold at 6 kbit/s (750 bytes a second), the lowest bitrate of any codec
 * the providers take. A file whose header cannot be read is reserved by its size alone.
 */
export const RESERVE_BYTES_PER_SECOND = 2_000;
export const LOWEST_BYTES_PER_SECOND = 750;
/**
 * Models priced per token: the audio counted at 25 tokens a second (OpenAI's transcription models bill
 * about 1,000 audio tokens a minute, 17 a second) and the transcript at 10 tokens a second (fast speech is
 * 3–4 words a second), plus the prompt's tokens with the tokenizer margin.
 */
export const RESERVE_AUDIO_TOKENS_PER_SECOND = 25;
export const RESERVE_TRANSCRIPT_TOKENS_PER_SECOND = 10;
/** A header that takes longer than this to read is not waited for: the size bound stands. */
const HEADER_READ_LIMIT_MS = 2_000;

/**
 * The largest usage a transcription can have: the bounded duration (priced per minute), and for a model
 * priced per token the audio and transcript tokens of that duration plus the prompt. The key's tokens per
 * minute count the prompt, and for a model priced per token the whole estimate (corrected to the reported
 * usage afterwards); audio billed by the minute is not tokens.
 */
export async function speechReserve(model: CatalogModel, file: UploadedFile, prompt: string | undefined): Promise<ReserveEstimate> {
  const seconds = await audioSecondsBound(file);
  const promptTokens = prompt ? promptTokensBound(prompt) : 0;
  const audioTokens = seconds * RESERVE_AUDIO_TOKENS_PER_SECOND;
  const worstCase = createUsage({
    audioSeconds: seconds,
    inputTokens: audioTokens + promptTokens,
    audioInputTokens: audioTokens,
    outputTokens: seconds * RESERVE_TRANSCRIPT_TOKENS_PER_SECOND,
  });
  return { worstCase, rateLimitTokens: model.pricing.perAudioMinute !== undefined ? promptTokens : rateLimitedTokens(worstCase) };
}

/** Whole seconds: the size bound, raised to the duration the header declares (at most the 6 kbit/s ceiling). */
export async function audioSecondsBound(file: UploadedFile): Promise<number> {
  const sizeBound = Math.max(1, Math.ceil(file.size / RESERVE_BYTES_PER_SECOND));
  const declared = await declaredSeconds(file.path);
  if (declared === undefined) return sizeBound;
  const ceiling = Math.ceil(file.size / LOWEST_BYTES_PER_SECOND);
  return Math.max(sizeBound, Math.min(Math.ceil(declared), ceiling));
}

async function declaredSeconds(path: string): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const givenUp = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), HEADER_READ_LIMIT_MS).unref()));
  const read = parseFile(path, { duration: false, skipCovers: true, skipPostHeaders: true }).then(
    ({ format }) => (typeof format.duration === 'number' && Number.isFinite(format.duration) && format.duration > 0 ? format.duration : undefined),
    () => undefined, // not audio the parser knows, or a broken header: the size bound stands
  );
  try {
    return await Promise.race([read, givenUp]);
  } finally {
    clearTimeout(timer);
  }
}
