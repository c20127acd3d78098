/** Reads fields of a recorded request body without trusting its shape. */
export function recordOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function stringField(body: unknown, name: string): string | undefined {
  const value = recordOf(body)?.[name];
  return typeof value === 'string' ? value : undefined;
}

export function numberField(body: unknown, name: string): number | undefined {
  const value = recordOf(body)?.[name];
  if (typeof value === 'number') return value;
  // multipart fields arrive as text
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

export function booleanField(body: unknown, name: string): boolean {
  const value = recordOf(body)?.[name];
  return value === true || value === 'true';
}

export function arrayField(body: unknown, name: string): readonly unknown[] | undefined {
  const value = recordOf(body)?.[name];
  return Array.isArray(value) ? value : undefined;
}
