/** The three text formats of the gateway (spec 1.2). */
export const FORMAT_NAMES = ['chat', 'messages', 'responses'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];
