/** The text formats whose requests can be masked: the gateway's three (spec 1.2). */
export const MASKED_FORMATS = ['chat', 'messages', 'responses'] as const;
export type MaskedFormat = (typeof MASKED_FORMATS)[number];

export function isMaskedFormat(name: string): name is MaskedFormat {
  return (MASKED_FORMATS as readonly string[]).includes(name);
}
