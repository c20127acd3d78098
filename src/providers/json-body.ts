/** Parses a provider's answer body as JSON; `undefined` when it is not JSON (HTML error pages, plain text). */
export function parseJsonBody(body: Buffer | string): unknown {
  try {
    return JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The start of a body on one line, for log lines about answers that are not in a known error shape. */
export function bodyExcerpt(body: Buffer, maxLength = 200): string {
  const text = body.subarray(0, maxLength * 4).toString('utf8').replace(/\s+/g, ' ').trim();
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}

export function shorten(text: string, maxLength = 200): string {
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}
