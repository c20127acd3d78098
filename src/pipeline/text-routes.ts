import { Router } from 'express';
import type { PipelineDependencies } from './pipeline-dependencies.js';
import { textEndpoint } from './text-endpoint.js';

/**
 * The three text formats. `/messages` also answers without `/v1`, for clients whose base URL is the
 * gateway root (spec 9.1: the messages format's clients append `/v1/messages` themselves, some `/messages`).
 */
export function textRoutes(deps: PipelineDependencies): Router {
  const router = Router();
  router.post('/v1/chat/completions', textEndpoint('chat', deps));
  const messages = textEndpoint('messages', deps);
  router.post('/v1/messages', messages);
  router.post('/messages', messages);
  router.post('/v1/responses', textEndpoint('responses', deps));
  return router;
}
