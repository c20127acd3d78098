import { initialKeyState, type KeyState } from '../../src/access/key-decider.js';
import { initialOrganizationState, type OrganizationState } from '../../src/access/organization-decider.js';
import type { CatalogModel } from '../../src/catalog/catalog.js';
import { CatalogStore } from '../../src/catalog/catalog-store.js';
import type { BodyKind, EndpointRequest, EndpointSpec, RequestBodies } from '../../src/endpoints/endpoint-spec.js';
import type { Caller } from '../../src/pipeline/authenticate.js';
import type { BodyRead, Received } from '../../src/pipeline/request-stages.js';
import { decideCatalogPrices, evolvePrices, initialPriceState, priceInForce } from '../../src/prices/price-decider.js';
import type { PriceList } from '../../src/prices/price-book.js';
import { MemoryConnection } from './memory-connection.js';
import { TEST_CATALOG } from './test-gateway.js';

/**
 * Stages of the pipeline made by hand, for its steps tested one at a time (test/unit/pipeline/steps): a
 * caller with the settings a test names, a request received on an endpoint, a body read.
 */
export const NOW = new Date('2026-11-26T10:00:00.000Z');

export function testCaller(key: Partial<KeyState> = {}, organization: Partial<OrganizationState> = {}): Caller {
  return {
    key: { ...initialKeyState, exists: true, keyId: 'key_step', orgId: 'org_step', rpm: 120, tpm: 200_000, ...key },
    organization: { ...initialOrganizationState, exists: true, orgId: 'org_step', name: 'Step org', ...organization },
    spaceId: null,
  };
}

export function received<Request extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Request, Kind>,
  connection: MemoryConnection = new MemoryConnection(),
): Received<Request, Kind> {
  return { spec, connection, requestId: 'gen-step', now: NOW };
}

/** A request of `spec` whose body has been read, by `caller`, masking off. */
export function bodyRead<Request extends EndpointRequest, Kind extends BodyKind>(
  spec: EndpointSpec<Request, Kind>,
  body: RequestBodies[Kind],
  caller: Caller = testCaller(),
  connection: MemoryConnection = new MemoryConnection(),
): BodyRead<Request, Kind> {
  return { ...received(spec, connection), caller, masking: 'off', body };
}

let catalog: Promise<CatalogStore> | undefined;
/** The test catalog (test/support/catalog.test.yaml). */
export function testCatalog(): Promise<CatalogStore> {
  return (catalog ??= CatalogStore.open(TEST_CATALOG));
}

export async function testModel(id: string): Promise<CatalogModel> {
  const model = (await testCatalog()).findModel(id);
  if (!model) throw new Error(`${id} is not in the test catalog`);
  return model;
}

/** A model as the resolve step leaves it: the model, and itself as its only candidate (no fallbacks). */
export async function resolvedModel(id: string): Promise<{ model: CatalogModel; candidates: CatalogModel[] }> {
  const model = await testModel(id);
  return { model, candidates: [model] };
}

/**
 * The test catalog's prices as version 1 of each model, in force since 1970, for the steps tested without
 * a store (the price decider's own events, folded; test/support/pipeline-core.ts records them in a store).
 */
export async function testPrices(): Promise<PriceList> {
  const models = [...(await testCatalog()).current.models.values()].map((model) => ({ model: model.id, pricing: model.pricingUsd }));
  const state = decideCatalogPrices(initialPriceState, models, new Date(0)).reduce(evolvePrices, initialPriceState);
  return {
    inForce: (model, at) => priceInForce(state.get(model) ?? [], at),
    version: (model, version) => state.get(model)?.find((known) => known.version === version),
    history: (model) => state.get(model) ?? [],
  };
}
