/** The provider APIs the gateway calls; each kind maps them to its own paths (or does not offer them). */
export const PROVIDER_APIS = ['chat', 'messages', 'responses', 'embeddings', 'images', 'transcriptions', 'videos'] as const;

export type ProviderApi = (typeof PROVIDER_APIS)[number];

/** What a video path points at: the job itself, or its file. */
export type VideoResourcePart = 'job' | 'content';
