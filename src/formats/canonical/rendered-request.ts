import type { JsonObject } from '../json-value.js';

/** A provider request body and the client parameters the target format has no counterpart for. */
export interface RenderedRequest {
  readonly body: JsonObject;
  readonly dropped: readonly string[];
}

export interface RequestRenderOptions {
  /** The provider's own model name. */
  readonly model: string;
  /**
   * Messages requires `max_tokens`; when the client sent no cap the pipeline passes the model's response
   * ceiling (spec 8: the reserve is computed on the same number). Default 4096 (LiteLLM's default).
   */
  readonly maxOutputTokensFallback?: number;
}
