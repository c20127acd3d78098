import { z as zod, type z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';

/** `messages[2].content[0].text` from a zod path. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

interface Located {
  readonly path: PropertyKey[];
  readonly message: string;
}

/**
 * The most useful issue: for a union that failed in every branch, the branch that got deepest names the
 * field that is actually wrong (`content[0].text`) instead of "Invalid input" on `content`.
 */
function locate(issue: z.core.$ZodIssue): Located {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    let best: Located | undefined;
    for (const branch of issue.errors) {
      const first = branch[0];
      if (!first) continue;
      const inner = locate(first);
      if (!best || inner.path.length > best.path.length) best = inner;
    }
    if (best) return { path: [...issue.path, ...best.path], message: best.message };
  }
  return { path: [...issue.path], message: issue.message };
}

/** Client input: a wrong body is the client's fault (400 `invalid_request`, with the field as `param`). */
export function parseClientBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const { path, message } = first ? locate(first) : { path: [], message: 'invalid body' };
  const param = formatPath(path);
  throw new GatewayError('invalid_request', param ? `${param}: ${message}` : message, param ? { param } : {});
}

/** Provider output: a body we cannot read is the provider's failure (502 `provider_error`). */
export function parseProviderBody<T extends z.ZodType>(schema: T, body: unknown, what: string): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const { path, message } = first ? locate(first) : { path: [], message: 'invalid body' };
  throw new GatewayError('provider_error', `unreadable ${what} from the provider: ${formatPath(path)}: ${message}`);
}

/** Thrown by renderers for a request the target format cannot express. */
export function invalidForTarget(message: string, param?: string): GatewayError {
  return new GatewayError('invalid_request', message, param ? { param } : {});
}

/**
 * A union whose branch is chosen by looking at the value (usually its `type`), for open unions with a
 * catch-all branch: a plain `z.union` reports a known-type block with a bad field as "Invalid input" on the
 * block, where this reports the field itself (`content[0].tool_use_id`).
 */
export function dispatched<S extends z.ZodType>(select: (value: unknown) => S) {
  return zod.unknown().transform((value, context): z.output<S> => {
    const result = select(value).safeParse(value);
    if (result.success) return result.data as z.output<S>;
    for (const issue of result.error.issues) context.issues.push({ ...issue, input: value } as z.core.$ZodRawIssue);
    return zod.NEVER;
  });
}

/** The `type` of an object value, if it is a string. */
export function typeOf(value: unknown): string | undefined {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : undefined;
}
