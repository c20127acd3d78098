import { ApiError } from './api.js';

/** What an error code means for the person at the console, in plain words; the code itself is shown too. */
const PLAIN_WORDS: Record<string, string> = {
  network_error: 'The gateway did not answer. Check that it is running and reachable.',
  invalid_request: 'The gateway refused the input.',
  invalid_json: 'The gateway could not read the request.',
  invalid_admin_token: 'You are not signed in, or the admin token is wrong.',
  csrf_check_failed: 'The gateway could not confirm that this action came from this page. Reload the page and try again.',
  resource_not_found: 'It does not exist (any more): the id may be wrong.',
  route_not_found: 'This gateway does not offer this function.',
  insufficient_funds: 'The balance does not cover it.',
  service_unavailable: 'The gateway cannot reach one of its stores right now. Try again in a moment.',
  internal_error: 'The gateway failed. The error was logged with its request id.',
  request_too_large: 'The request is too large.',
};

export interface ShownError {
  summary: string;
  detail: string;
  code: string;
  status: number;
}

export function describeError(error: unknown): ShownError {
  if (error instanceof ApiError) {
    return { summary: PLAIN_WORDS[error.code] ?? 'The gateway refused it.', detail: error.message, code: error.code, status: error.status };
  }
  return { summary: 'Something went wrong in the console.', detail: String((error as Error)?.message ?? error), code: 'console_error', status: 0 };
}
