export const MiB = 1024 * 1024;
/** Spec 8: 32 MiB for every endpoint, 26 MiB for speech. */
export const DEFAULT_BODY_LIMIT = 32 * MiB;
export const SPEECH_BODY_LIMIT = 26 * MiB;
