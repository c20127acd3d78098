import type { BodyKind, EndpointRequest, EndpointSpec } from '../endpoints/endpoint-spec.js';
import { embeddingsEndpoint } from '../endpoints/embeddings/embeddings-endpoint.js';
import { imagesEndpoint } from '../endpoints/images/images-endpoint.js';
import { chatEndpoint, messagesEndpoint, responsesEndpoint } from '../endpoints/text/text-endpoints.js';
import { transcriptionsEndpoint } from '../endpoints/transcriptions/transcriptions-endpoint.js';
import { videosEndpoint } from '../endpoints/videos/videos-endpoint.js';
import type { VideoJobs } from '../videos/video-jobs.js';
import type { PipelineDependencies } from './pipeline-dependencies.js';
import { runEndpoint, type EndpointHandler } from './run-endpoint.js';

/**
 * Every endpoint the gateway serves through the pipeline; a new endpoint is one more declaration here. The
 * video endpoint hands its requests to the instance's video jobs.
 */
export function endpoints(videoJobs: VideoJobs): ReadonlyArray<EndpointSpec<EndpointRequest, BodyKind>> {
  return [chatEndpoint, messagesEndpoint, responsesEndpoint, embeddingsEndpoint, imagesEndpoint, transcriptionsEndpoint, videosEndpoint(videoJobs)];
}

/** `POST` path → the endpoint's handler, for every route of every endpoint. */
export function endpointHandlers(deps: PipelineDependencies, videoJobs: VideoJobs): ReadonlyMap<string, EndpointHandler> {
  const handlers = new Map<string, EndpointHandler>();
  for (const spec of endpoints(videoJobs)) {
    const handler = runEndpoint(spec, deps);
    for (const route of spec.routes) handlers.set(route, handler);
  }
  return handlers;
}
