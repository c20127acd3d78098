/**
 * Fake OpenAI: a real HTTP server on 127.0.0.1 speaking the OpenAI wire format (wire-formats.md 1, 3–5),
 * shared by the demo (`npm run demo`), the benchmarks (ops/bench) and the integration and e2e tests. The
 * Anthropic twin is fake-anthropic-provider.ts; both share the scripting API below (fake-provider-server.ts,
 * scripted-answer.ts), which the tests use; the demo and the benchmarks take the default answer.
 *
 *   const openai = await startFakeOpenAi();            // openai.url = http://127.0.0.1:<port>/v1
 *   openai.enqueue({ text: 'Hi there', deltas: 2 });   // the next model request gets this answer
 *   openai.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time', arguments: '{}' }] });
 *   openai.enqueue({ reasoning: 'thinking…', usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40, reasoningTokens: 5 } });
 *   openai.enqueue({ error: { status: 429, retryAfter: 7 } });          // body: OpenAI's error shape unless `body` is given
 *   openai.enqueue({ firstByteDelayMs: 5_000 });                        // a provider that does not answer in time
 *   openai.enqueue({ failAfterEvents: 3 });                             // stream: socket destroyed after 3 events
 *   openai.enqueue({ errorEventAfter: 2 });                             // stream: `data: {"error":…}` after 2 events
 *   openai.enqueue({ holdLastEventUntil: released });                   // stream: last event waits for a promise
 *   openai.enqueue({ holdUntil: released });                            // no status line until the promise settles
 *   openai.enqueue({ usage: null, finish: 'max_tokens' });              // no usage anywhere; finish_reason "length"
 *   openai.enqueue({ path: '/v1/embeddings', usage: { inputTokens: 3, outputTokens: 0 } });  // only for that path
 *   openai.enqueue({ video: { manual: true } });  … openai.videos.complete(id) / .fail(id)
 *   openai.enqueue(PROVIDER_FAULTS.trickle);      // a provider failing as real ones do (provider-faults.ts);
 *   // or, for requests running at once, the request names its own: a prompt containing `fake-fault:endless`
 *   openai.requests / openai.lastRequest        // method, path, headers, parsed body (JSON or multipart fields), connection, outcome
 *   openai.connectionsOpened                    // sockets accepted: keep-alive reuse keeps it low
 *   await openai.lastRequest!.outcome           // 'closed' when the client hung up before the answer ended
 *   // a request for a model named `…-<n>ms` (say `gpt-4o-mini-20ms`) is answered n ms late, scripted or not
 *   openai.reset(); await openai.close();
 *
 * Answers are taken first in, first out by the model endpoints; with none queued the default answer is
 * `DEFAULT_TEXT` with `DEFAULT_USAGE`. Streams follow `stream: true`; chat adds the usage chunk only when the
 * request sets `stream_options.include_usage`, as OpenAI does. `modalities: ["image"]` on chat returns
 * `message.images`. `startFakeOpenAi({ record: false })` is the benchmark's fast path: unscripted answers
 * come from a cache of serialised bytes and nothing is recorded.
 *
 * Routes: POST /v1/chat/completions, /v1/responses, /v1/embeddings, /v1/images/generations,
 * /v1/audio/transcriptions (multipart), /v1/videos (JSON or multipart); GET /v1/videos/{id},
 * GET /v1/videos/{id}/content (video/mp4), DELETE /v1/videos/{id}; GET /v1/models.
 */
import { Readable } from 'node:stream';
import { formatSseEvent } from '../../src/formats/sse-event.js';
import { chatCompletion, chatCompletionChunks, chatStreamErrorEvent } from './openai-chat-answer.js';
import { responsesAnswer, responsesEvents, responsesStreamErrorEvent } from './openai-responses-answer.js';
import { embeddingsAnswer, imagesAnswer, transcriptionAnswer } from './openai-side-answers.js';
import { FAKE_MP4, FakeVideoJobs } from './fake-video-jobs.js';
import { FakeProviderServer, type FakeExchange, type FakeProviderOptions } from './fake-provider-server.js';
import { faultNamedIn, playTransportFault } from './provider-faults.js';
import { booleanField, recordOf, stringField } from './request-fields.js';
import { fakeId, type ScriptedAnswer } from './scripted-answer.js';

const CHAT = '/v1/chat/completions';
const RESPONSES = '/v1/responses';
const EMBEDDINGS = '/v1/embeddings';
const IMAGES = '/v1/images/generations';
const TRANSCRIPTIONS = '/v1/audio/transcriptions';
const VIDEOS = '/v1/videos';
const MODEL_PATHS: ReadonlySet<string> = new Set([CHAT, RESPONSES, EMBEDDINGS, IMAGES, TRANSCRIPTIONS, VIDEOS]);
const VIDEO_PATH = /^\/v1\/videos\/([^/]+)(\/content)?$/;

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `size` bytes in pieces of 64 KiB, each byte its offset modulo 251, so a slice of the file can be checked. */
function* generatedBytes(size: number): Generator<Buffer> {
  const piece = 64 * 1024;
  for (let offset = 0; offset < size; offset += piece) {
    const length = Math.min(piece, size - offset);
    const chunk = Buffer.allocUnsafe(length);
    for (let index = 0; index < length; index++) chunk[index] = (offset + index) % 251;
    yield chunk;
  }
}

interface CachedAnswer {
  readonly contentType: string;
  readonly bytes: Buffer;
}

export class FakeOpenAi extends FakeProviderServer {
  readonly videos = new FakeVideoJobs();
  private readonly cache = new Map<string, CachedAnswer>();

  constructor(options: FakeProviderOptions = {}) {
    super(options);
  }

  override get url(): string {
    return `${this.origin}/v1`;
  }

  protected override errorBody(status: number, message: string): unknown {
    const code = status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : status === 404 ? 'model_not_found' : null;
    return { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code } };
  }

  protected override async route(exchange: FakeExchange): Promise<void> {
    const { request, response } = exchange;
    if (this.options.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      this.writeJson(response, 401, this.errorBody(401, 'Incorrect API key provided.'), { 'x-request-id': fakeId('req_fake') });
      return;
    }
    if (request.method === 'POST' && MODEL_PATHS.has(request.path)) return this.answerModelRequest(exchange);
    const video = VIDEO_PATH.exec(request.path);
    if (video) return this.answerVideo(exchange, decodeURIComponent(video[1]!), video[2] !== undefined);
    if (request.method === 'GET' && request.path === '/v1/models') {
      this.writeJson(response, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] });
      return;
    }
    this.writeJson(response, 404, this.errorBody(404, `Unknown request URL: ${request.method} ${request.path}.`));
  }

  private async answerModelRequest(exchange: FakeExchange): Promise<void> {
    const { request, response, closed } = exchange;
    // a model named `…-<n>ms` is a provider whose first byte takes n ms (the benchmark's latency loads)
    if (!(await this.delay(firstByteDelayOfModel(request.body), closed))) return;
    if (this.fastPath && !faultNamedIn(request.rawBody) && this.answerFromCache(exchange)) return;
    const answer = this.answerFor(exchange);
    const body = request.body;
    // a video job exists once its request has arrived, also when the answer is held and its client leaves
    const video = request.path === VIDEOS && !answer.error ? this.createVideo(answer, body, firstHeader(request.headers['idempotency-key'])) : undefined;
    if (!(await this.delay(answer.firstByteDelayMs, closed))) return;
    if (!(await this.hold(answer.holdUntil, closed))) return;
    const requestId = { 'x-request-id': fakeId('req_fake') };
    if (answer.error) return this.writeError(response, answer.error, requestId);
    const stream = booleanField(body, 'stream');
    if (await playTransportFault(response, answer, stream, closed)) return;
    switch (request.path) {
      case CHAT:
        if (stream) return this.writeSse(exchange, chatCompletionChunks(answer, body), answer, chatStreamErrorEvent(), requestId);
        return this.writeJson(response, 200, chatCompletion(answer, body), requestId);
      case RESPONSES:
        if (stream) return this.writeSse(exchange, responsesEvents(answer, body), answer, responsesStreamErrorEvent(answer.errorEventAfter ?? 0), requestId);
        return this.writeJson(response, 200, responsesAnswer(answer, body), requestId);
      case EMBEDDINGS:
        return this.writeJson(response, 200, embeddingsAnswer(answer, body), requestId);
      case IMAGES:
        return this.writeJson(response, 200, imagesAnswer(answer, body), requestId);
      case TRANSCRIPTIONS: {
        const transcription = transcriptionAnswer(answer, body);
        return this.writeBytes(response, 200, transcription.contentType, Buffer.from(transcription.body), requestId);
      }
      default:
        return this.writeJson(response, 200, video ?? {}, requestId);
    }
  }

  private createVideo(answer: ScriptedAnswer, body: unknown, idempotencyKey: string | undefined): Record<string, unknown> {
    const seconds = recordOf(body)?.seconds;
    return this.videos.create(
      {
        model: stringField(body, 'model'),
        prompt: stringField(body, 'prompt'),
        seconds: typeof seconds === 'number' ? String(seconds) : stringField(body, 'seconds'),
        size: stringField(body, 'size'),
      },
      answer.video,
      idempotencyKey,
    );
  }

  private answerVideo(exchange: FakeExchange, id: string, content: boolean): void {
    const { request, response } = exchange;
    const job = this.videos.get(id);
    if (!job) return this.writeJson(response, 404, this.errorBody(404, `Video with id '${id}' not found.`));
    if (request.method === 'DELETE' && !content) {
      this.videos.delete(id);
      return this.writeJson(response, 200, { id, object: 'video.deleted', deleted: true });
    }
    if (request.method !== 'GET') return this.writeJson(response, 405, this.errorBody(405, 'Method not allowed.'));
    if (!content) return this.writeJson(response, 200, job);
    if (job.status !== 'completed') return this.writeJson(response, 404, this.errorBody(404, 'Video is not ready yet, try again after it completes.'));
    const size = this.videos.contentBytes(id);
    if (size === FAKE_MP4.length) return this.writeBytes(response, 200, 'video/mp4', FAKE_MP4);
    // a large file, generated as it is sent (a `Range` header is ignored, as some providers do)
    response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) });
    Readable.from(generatedBytes(size)).pipe(response);
  }

  /** Benchmarks: the default answer serialised once per (path, model, stream, include_usage). */
  private answerFromCache({ request, response }: FakeExchange): boolean {
    const body = request.body;
    const stream = booleanField(body, 'stream');
    const includeUsage = booleanField(recordOf(body)?.stream_options, 'include_usage');
    const key = `${request.path}|${stringField(body, 'model') ?? ''}|${stream}|${includeUsage}`;
    let cached = this.cache.get(key);
    if (!cached) {
      const built = buildCachedAnswer(request.path, body, stream);
      if (!built) return false;
      cached = built;
      this.cache.set(key, cached);
    }
    this.writeBytes(response, 200, cached.contentType, cached.bytes);
    return true;
  }
}

function buildCachedAnswer(path: string, body: unknown, stream: boolean): CachedAnswer | undefined {
  const sse = (events: ReturnType<typeof chatCompletionChunks>): CachedAnswer => ({
    contentType: 'text/event-stream; charset=utf-8',
    bytes: Buffer.from(events.map(formatSseEvent).join('')),
  });
  const json = (value: unknown): CachedAnswer => ({ contentType: 'application/json', bytes: Buffer.from(JSON.stringify(value)) });
  switch (path) {
    case CHAT:
      return stream ? sse(chatCompletionChunks({}, body)) : json(chatCompletion({}, body));
    case RESPONSES:
      return stream ? sse(responsesEvents({}, body)) : json(responsesAnswer({}, body));
    case EMBEDDINGS:
      return json(embeddingsAnswer({}, body));
    default:
      return undefined;
  }
}

export async function startFakeOpenAi(options: FakeProviderOptions = {}): Promise<FakeOpenAi> {
  return new FakeOpenAi(options).listen();
}

/** The first-byte delay a request's model name asks for: `gpt-4o-mini-20ms` → 20; 0 for any other name. */
export function firstByteDelayOfModel(body: unknown): number {
  const match = /-(\d{1,5})ms$/.exec(stringField(body, 'model') ?? '');
  return match ? Number(match[1]) : 0;
}
