import type { ProviderApi, VideoResourcePart } from '../provider-api.js';

/** Paths relative to an OpenAI base URL, which includes `/v1` (https://api.openai.com/v1). */
const OPENAI_PATHS: Readonly<Record<ProviderApi, string | undefined>> = {
  chat: '/chat/completions',
  messages: undefined,
  responses: '/responses',
  embeddings: '/embeddings',
  images: '/images/generations',
  transcriptions: '/audio/transcriptions',
  videos: '/videos',
};

export function openAiPath(api: ProviderApi): string | undefined {
  return OPENAI_PATHS[api];
}

export function openAiVideoPath(videoId: string, part: VideoResourcePart): string {
  const job = `/videos/${encodeURIComponent(videoId)}`;
  return part === 'content' ? `${job}/content` : job;
}
