import type { BodyKind, EndpointRequest, EndpointSpec } from '../endpoints/endpoint-spec.js';
import type { ErrorStyle } from '../errors/render-error.js';
import type { ClientConnection } from './client-connection.js';
import type { PipelineDependencies } from './pipeline-dependencies.js';
import { recordOf, type RequestRecord } from './request-record.js';
import type { Stage } from './request-stages.js';
import { admitStep } from './steps/admit-step.js';
import { authenticateStep } from './steps/authenticate-step.js';
import { closeStep } from './steps/close-step.js';
import { costCapStep } from './steps/cost-cap-step.js';
import { estimateStep } from './steps/estimate-step.js';
import { maskingStep } from './steps/masking-step.js';
import { maskStep } from './steps/mask-step.js';
import { parseStep } from './steps/parse-step.js';
import { readBodyStep, releaseBodyStep } from './steps/read-body-step.js';
import { receiveStep } from './steps/receive-step.js';
import { reserveStep } from './steps/reserve-step.js';
import { resolveModelStep } from './steps/resolve-model-step.js';
import { serveStep } from './steps/serve-step.js';

/** One endpoint as the HTTP layer serves it: its error style (chosen before the body is read, spec 2.3) and its pipeline. */
export interface EndpointHandler {
  readonly errorStyle: ErrorStyle;
  /** The endpoint's own request ids (a video job's `video_…`), when it does not use the HTTP layer's `gen-…` ones. */
  readonly newRequestId: (() => string) | undefined;
  /** Runs the request to its end (the reservation closed); never rejects. */
  handle(connection: ClientConnection, requestId: string): Promise<HandledRequest>;
}

/** What became of a request: what the pipeline learned, and the error the client is to get, if any (not yet sent). */
export interface HandledRequest {
  readonly record: RequestRecord;
  readonly error?: unknown;
}

/**
 * The request pipeline (DESIGN 5), the same for every endpoint declaration. Each step is a function of its
 * own (src/pipeline/steps/) that takes the stage the one before returned and returns the next; the order
 * is the body of `runSteps`, read top to bottom. Everything before the reserve costs nothing; from the
 * reserve on, the serve step never throws and the close step closes the reservation exactly once.
 */
export function runEndpoint<Request extends EndpointRequest, Kind extends BodyKind>(spec: EndpointSpec<Request, Kind>, deps: PipelineDependencies): EndpointHandler {
  return {
    errorStyle: spec.errorStyle,
    newRequestId: spec.settles === 'by_job' ? () => spec.newRequestId() : undefined,
    async handle(connection, requestId) {
      let reached: Stage | undefined;
      const reach = <Next extends Stage>(stage: Next): Next => (reached = stage);
      try {
        await runSteps(spec, deps, connection, requestId, reach);
        return { record: recordOf(reached!, undefined) };
      } catch (error) {
        return { record: reached ? recordOf(reached, error) : { endpoint: spec.name }, error };
      }
    },
  };
}

async function runSteps<Request extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Request, Kind>,
  deps: PipelineDependencies,
  connection: ClientConnection,
  requestId: string,
  reach: <Next extends Stage>(stage: Next) => Next,
): Promise<void> {
  const received = reach(receiveStep(spec, connection, requestId, deps.clock));
  const authenticated = reach(authenticateStep(deps, received));
  const maskingDecided = reach(maskingStep(authenticated));
  const bodyRead = reach(await readBodyStep(maskingDecided));
  try {
    const masked = reach(await maskStep(deps, bodyRead));
    const parsed = reach(parseStep(masked));
    const resolved = reach(resolveModelStep(deps, parsed));
    const estimated = reach(await estimateStep(deps, resolved));
    const capped = reach(costCapStep(estimated));
    const admitted = reach(await admitStep(deps, capped));
    const reserved = reach(await reserveStep(deps, admitted));
    const served = reach(await serveStep(deps, reserved));
    const closed = reach(await closeStep(deps, served));
    if (closed.outcome.error !== undefined) throw closed.outcome.error;
  } finally {
    await releaseBodyStep(bodyRead);
  }
}
