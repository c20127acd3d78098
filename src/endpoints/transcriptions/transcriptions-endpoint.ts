import { countTokens } from '../../billing/o200k-token-counter.js';
import { createUsage, type Usage } from '../../billing/usage.js';
import type { CatalogModel } from '../../catalog/catalog.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { JsonObject } from '../../formats/json-value.js';
import { providerAdapter } from '../../providers/provider-registry.js';
import { SPEECH_BODY_LIMIT } from '../body-limits.js';
import type { EndpointSpec, ReserveEstimate } from '../endpoint-spec.js';
import { encodeMultipart } from '../multipart/multipart-encoder.js';
import { fieldValue, type UploadedFile } from '../multipart/multipart-upload.js';
import { speechReserve } from './speech-reserve.js';
import { isTranscriptFormat, renderTranscript, transcriptText, TRANSCRIPT_FORMATS, upstreamFormat, type TranscriptFormat } from './transcript-formats.js';

/**
 * `POST /v1/audio/transcriptions` (spec 4.3 rule 4, wire-formats.md 4.3): speech models only, a
 * `multipart/form-data` body up to 26 MiB whose file the pipeline spools to disk; the form goes on to the
 * provider as multipart, the file streamed from the spool, the model replaced. Fields the gateway does not
 * read (`language`, `temperature`, `timestamp_granularities[]`, …) pass through.
 */
export interface TranscriptionRequest {
  readonly model: string;
  readonly format: TranscriptFormat;
  readonly prompt: string | undefined;
  readonly file: UploadedFile;
}

/** Fields the gateway sets itself on the way to the provider. */
const REPLACED_FIELDS = new Set(['model', 'response_format', 'stream']);

export const transcriptionsEndpoint: EndpointSpec<TranscriptionRequest, 'multipart'> = {
  name: 'transcriptions',
  routes: ['/v1/audio/transcriptions'],
  errorStyle: 'openai',
  bodyKind: 'multipart',
  bodyLimit: SPEECH_BODY_LIMIT,
  categories: ['speech'],
  piiMasking: 'unsupported',
  settles: 'at_answer',
  parse: (upload) => {
    const { file } = upload;
    if (!file) throw new GatewayError('invalid_multipart', 'the audio file is missing: send it in the field file', { param: 'file' });
    if (file.size === 0) throw new GatewayError('invalid_multipart', 'the audio file is empty', { param: 'file' });
    const model = fieldValue(upload, 'model');
    if (!model) throw new GatewayError('invalid_request', 'model is required', { param: 'model' });
    const format = fieldValue(upload, 'response_format') ?? 'json';
    if (!isTranscriptFormat(format)) {
      throw new GatewayError('invalid_request', `response_format must be one of ${TRANSCRIPT_FORMATS.join(', ')}`, { param: 'response_format' });
    }
    if (fieldValue(upload, 'stream') === 'true') throw new GatewayError('invalid_request', 'streamed transcriptions are not supported', { param: 'stream' });
    return { model, format, prompt: fieldValue(upload, 'prompt'), file };
  },
  estimate: (request, model) => speechReserve(model, request.file, request.prompt),
  call: (exchange) => {
    const { model, request, body } = exchange;
    const path = providerAdapter(model.provider.kind).path('transcriptions');
    if (!path) throw new GatewayError('provider_error', `provider ${model.provider.name} has no transcription API`);
    const format = upstreamFormat(request.format);
    const subtitles = format !== request.format && format === 'verbose_json';
    const fields: Array<readonly [string, string]> = [
      ['model', model.upstream],
      ['response_format', format],
      // subtitles are rendered from segments, whatever granularity the client named
      ...body.fields.filter(([name]) => !REPLACED_FIELDS.has(name) && !(subtitles && name === 'timestamp_granularities[]')),
      ...(subtitles ? [['timestamp_granularities[]', 'segment'] as const] : []),
    ];
    const upload = encodeMultipart(fields, request.file);
    return exchange.providers.call({
      provider: model.provider,
      path,
      body: upload.open(),
      contentType: upload.contentType,
      contentLength: upload.contentLength,
      signal: exchange.signal,
    });
  },
  answer: (exchange, answer) => {
    const { model, request, estimate } = exchange;
    const usage = providerAdapter(model.provider.kind).sideUsage.transcription(answer) ?? countedUsage(model, request, estimate, answer);
    const rendered = renderTranscript(request.format, answer);
    return rendered ? { ...rendered, usage } : { body: answer, usage };
  },
};

/**
 * No usage and no duration in the answer: what the gateway can count. The duration it reserved for
 * (an upper bound from the file's size), or for a model priced per token, the reserved audio tokens and
 * the transcript's counted tokens.
 */
function countedUsage(model: CatalogModel, request: TranscriptionRequest, estimate: ReserveEstimate, answer: JsonObject): Usage {
  const { worstCase } = estimate;
  if (model.pricing.perAudioMinute !== undefined) return createUsage({ audioSeconds: worstCase.audioSeconds, counted: true });
  const outputTokens = countTokens(transcriptText(answer));
  return createUsage({ inputTokens: worstCase.inputTokens, outputTokens, counted: true });
}
