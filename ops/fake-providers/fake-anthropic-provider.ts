import { formatSseEvent } from '../../src/formats/sse-event.js';
import { messagesAnswer, messagesErrorBody, messagesEvents, messagesStreamErrorEvent } from './anthropic-messages-answer.js';
import { FakeProviderServer, type FakeExchange, type FakeProviderOptions } from './fake-provider-server.js';
import { faultNamedIn, playTransportFault } from './provider-faults.js';
import { booleanField, stringField } from './request-fields.js';
import { fakeId } from './scripted-answer.js';

/**
 * Fake Anthropic: `POST /v1/messages`, JSON or streamed (`stream: true`), with the scripting API of
 * fake-openai-provider.ts (see the comment at its top). Like the real API it wants `anthropic-version`
 * and, when started with `apiKey`, that key in `x-api-key` or `Authorization: Bearer`. Every answer
 * carries a `request-id` header.
 */
export class FakeAnthropic extends FakeProviderServer {
  private readonly cache = new Map<string, Buffer>();

  constructor(options: FakeProviderOptions = {}) {
    super(options);
  }

  override get url(): string {
    return this.origin;
  }

  protected override errorBody(status: number, message: string): unknown {
    return messagesErrorBody(status, message, fakeId('req_fake'));
  }

  protected override async route(exchange: FakeExchange): Promise<void> {
    const { request, response, closed } = exchange;
    const requestId = { 'request-id': fakeId('req_fake') };
    // the API takes the key in x-api-key or as a Bearer token; @anthropic-ai/sdk 1.x sends the latter
    const key = this.options.apiKey;
    if (key !== undefined && request.headers['x-api-key'] !== key && request.headers.authorization !== `Bearer ${key}`) {
      return this.writeJson(response, 401, this.errorBody(401, 'invalid x-api-key'), requestId);
    }
    if (request.method !== 'POST' || request.path !== '/v1/messages') {
      return this.writeJson(response, 404, this.errorBody(404, `Not found: ${request.method} ${request.path}`), requestId);
    }
    if (request.headers['anthropic-version'] === undefined) {
      return this.writeJson(response, 400, this.errorBody(400, 'anthropic-version: header is required'), requestId);
    }
    const body = request.body;
    const stream = booleanField(body, 'stream');
    if (this.fastPath && !faultNamedIn(request.rawBody)) {
      const key = `${stringField(body, 'model') ?? ''}|${stream}`;
      let bytes = this.cache.get(key);
      if (!bytes) {
        bytes = Buffer.from(stream ? messagesEvents({}, body).map(formatSseEvent).join('') : JSON.stringify(messagesAnswer({}, body)));
        this.cache.set(key, bytes);
      }
      return this.writeBytes(response, 200, stream ? 'text/event-stream; charset=utf-8' : 'application/json', bytes);
    }
    const answer = this.answerFor(exchange);
    if (!(await this.delay(answer.firstByteDelayMs, closed))) return;
    if (!(await this.hold(answer.holdUntil, closed))) return;
    if (answer.error) return this.writeError(response, answer.error, requestId);
    if (await playTransportFault(response, answer, stream, closed)) return;
    if (stream) return this.writeSse(exchange, messagesEvents(answer, body), answer, messagesStreamErrorEvent(), requestId);
    return this.writeJson(response, 200, messagesAnswer(answer, body), requestId);
  }
}

export async function startFakeAnthropic(options: FakeProviderOptions = {}): Promise<FakeAnthropic> {
  return new FakeAnthropic(options).listen();
}
