/** Why a provider stream ended before its last event. */
export type ProviderStreamFailure = 'connection' | 'timeout' | 'aborted';

/**
 * Thrown by a `ProviderEventStream` that breaks mid-way. The gateway settles for what it received
 * (`eventsReceived`) and ends the client's stream with its format's error event.
 */
export class ProviderStreamError extends Error {
  override name = 'ProviderStreamError';

  constructor(
    readonly failure: ProviderStreamFailure,
    readonly eventsReceived: number,
    options: { cause?: unknown } = {},
  ) {
    super(`provider stream ${failure === 'connection' ? 'broke' : failure === 'timeout' ? 'timed out' : 'was aborted'} after ${eventsReceived} events`, options);
  }
}

export function isProviderStreamError(error: unknown): error is ProviderStreamError {
  return error instanceof ProviderStreamError;
}
