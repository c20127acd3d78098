import type { ImageSource } from './canonical-request.js';

const DATA_URL = /^data:([^;,]+);base64,/;

/** `data:<media type>;base64,<data>` → base64 source; anything else is a URL the provider fetches. */
export function imageSourceFromUrl(url: string): ImageSource {
  const match = DATA_URL.exec(url);
  if (match) return { kind: 'base64', mediaType: match[1]!, data: url.slice(match[0].length) };
  return { kind: 'url', url };
}

export function imageSourceToUrl(source: ImageSource): string {
  return source.kind === 'base64' ? `data:${source.mediaType};base64,${source.data}` : source.url;
}
