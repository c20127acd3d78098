import type { ConsoleSessionRecord } from '../admin-records.js';

/**
 * Every call the console makes: the admin API under /admin/v1 and its own session under /console/session,
 * same-origin, with the session cookie. A call that changes something carries the CSRF token the session
 * answered with (`X-Console-CSRF`); the browser adds `Origin` itself. Nothing is kept in browser storage.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';

async function send(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json', ...headers } };
  if (method !== 'GET' && method !== 'HEAD') (init.headers as Record<string, string>)['x-console-csrf'] = csrfToken;
  if (body !== undefined) {
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError(0, 'network_error', 'the gateway did not answer');
  }
  if (!response.ok) {
    const text = await response.text();
    let error: { code?: string; message?: string } = {};
    try {
      error = (JSON.parse(text) as { error?: typeof error }).error ?? {};
    } catch {
      // not the gateway's error shape (a proxy's page, say): keep the status
    }
    const apiError = new ApiError(response.status, error.code ?? `http_${response.status}`, error.message ?? (text.slice(0, 200) || response.statusText));
    if (response.status === 401) onSignedOut?.(apiError);
    throw apiError;
  }
  return response;
}

/** Called when the gateway answers 401: the session ended (expired, signed out elsewhere, token rotated). */
let onSignedOut: ((error: ApiError) => void) | undefined;
export function whenSignedOut(handler: (error: ApiError) => void): void {
  onSignedOut = handler;
}

export async function admin<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
  const response = await send(method, `/admin/v1${path}`, body, headers);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

export const get = <T>(path: string, query: Record<string, string | number | undefined> = {}) => admin<T>('GET', withQuery(path, query));

export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** The current session, or undefined when the cookie holds none. */
export async function loadSession(): Promise<ConsoleSessionRecord | undefined> {
  const response = await fetch('/console/session', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (response.status === 401) return undefined;
  if (!response.ok) throw new ApiError(response.status, `http_${response.status}`, 'the session could not be read');
  const session = (await response.json()) as ConsoleSessionRecord;
  csrfToken = session.csrf_token;
  return session;
}

export async function signIn(token: string): Promise<void> {
  const saved = onSignedOut;
  onSignedOut = undefined; // a wrong token is the form's error, not a sign-out
  try {
    await send('POST', '/console/session', { token });
  } finally {
    onSignedOut = saved;
  }
}

export async function signOut(): Promise<void> {
  await send('DELETE', '/console/session');
  csrfToken = '';
}
