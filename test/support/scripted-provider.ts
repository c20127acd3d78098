import type { ProviderCall, ProviderClient, ProviderDownload, ProviderResponse } from '../../src/providers/provider-client.js';

/**
 * A provider client that answers each call with what the test gives it (the world outside the gateway),
 * for the pipeline's steps tested without HTTP. It records the calls it was given.
 */
export class ScriptedProvider implements ProviderClient {
  readonly calls: ProviderCall[] = [];

  constructor(private readonly answer: (call: ProviderCall) => Promise<ProviderResponse> = () => Promise.reject(new Error('no provider call was expected'))) {}

  call(call: ProviderCall): Promise<ProviderResponse> {
    this.calls.push(call);
    return this.answer(call);
  }

  download(call: ProviderCall): Promise<ProviderDownload> {
    this.calls.push(call);
    return Promise.reject(new Error('no download was expected'));
  }

  async close(): Promise<void> {}
}
