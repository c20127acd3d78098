import { expect } from 'chai';
import type { PricingEntry } from '../../../src/catalog/catalog-schema.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { decideCatalogPrices, decideScheduledPrice, evolvePrices, initialPriceState, priceInForce, type PriceState } from '../../../src/prices/price-decider.js';
import type { ModelPriceSet } from '../../../src/prices/price-events.js';

const T0 = new Date('2026-11-01T00:00:00.000Z');
const T1 = new Date('2026-11-10T00:00:00.000Z');
const T2 = new Date('2026-11-20T00:00:00.000Z');
const cheap: PricingEntry = { input_per_mtok: '1', output_per_mtok: '2' };
const dear: PricingEntry = { input_per_mtok: '3', output_per_mtok: '6' };

const fold = (...events: ModelPriceSet[]): PriceState => events.reduce(evolvePrices, initialPriceState);
const versionAt = (state: PriceState, at: Date) => priceInForce(state.get('p/m') ?? [], at)?.version;

describe('price decider', () => {
  it("records a model's first catalog price, and nothing when the catalog's prices are unchanged", () => {
    const first = decideCatalogPrices(initialPriceState, [{ model: 'p/m', pricing: cheap }], T0);
    expect(first).to.deep.equal([{ type: 'ModelPriceSet', data: { model: 'p/m', version: 1, effectiveAt: T0.toISOString(), source: 'catalog', pricing: cheap } }]);
    // "1.0" and "1" are one rate: a catalog reformatted is not a new price
    expect(decideCatalogPrices(fold(...first), [{ model: 'p/m', pricing: { input_per_mtok: '1.0', output_per_mtok: '2.000' } }], T1)).to.deep.equal([]);
  });

  it('records a changed catalog price as the next version, in force from then on', () => {
    const state = fold(...decideCatalogPrices(initialPriceState, [{ model: 'p/m', pricing: cheap }], T0));
    const next = decideCatalogPrices(state, [{ model: 'p/m', pricing: dear }], T1);
    expect(next.map((event) => [event.data.version, event.data.effectiveAt])).to.deep.equal([[2, T1.toISOString()]]);
    const after = fold(...state.get('p/m')!.map((v) => ({ type: 'ModelPriceSet' as const, data: { model: v.model, version: v.version, effectiveAt: v.effectiveAt.toISOString(), source: v.source, pricing: v.pricingUsd } })), ...next);
    expect(versionAt(after, new Date(T1.getTime() - 1))).to.equal(1);
    expect(versionAt(after, T1)).to.equal(2);
  });

  it('leaves a price set through the admin API in force until the catalog itself changes', () => {
    const v1 = decideCatalogPrices(initialPriceState, [{ model: 'p/m', pricing: cheap }], T0);
    const v2 = decideScheduledPrice(fold(...v1), { model: 'p/m', pricing: dear }, T1);
    const state = fold(...v1, v2);
    // a reload of the same catalog changes nothing: the admin's price stays in force
    expect(decideCatalogPrices(state, [{ model: 'p/m', pricing: cheap }], T2)).to.deep.equal([]);
    expect(versionAt(state, T2)).to.equal(2);
  });

  it('puts a scheduled price in force at its time, over a catalog change recorded before it', () => {
    const v1 = decideCatalogPrices(initialPriceState, [{ model: 'p/m', pricing: cheap }], T0);
    const v2 = decideScheduledPrice(fold(...v1), { model: 'p/m', pricing: dear, effectiveAt: T2 }, T0);
    const v3 = decideCatalogPrices(fold(...v1, v2), [{ model: 'p/m', pricing: { input_per_mtok: '5', output_per_mtok: '5' } }], T1);
    const state = fold(...v1, v2, ...v3);
    expect([versionAt(state, T0), versionAt(state, T1), versionAt(state, T2)]).to.deep.equal([1, 3, 2]);
  });

  it('refuses a price that would take effect in the past', () => {
    expect(() => decideScheduledPrice(initialPriceState, { model: 'p/m', pricing: dear, effectiveAt: T0 }, T1)).to.throw(GatewayError, /in the past/);
  });

  it('prices a time before the first version at the first (a clock behind the instance that recorded it)', () => {
    const state = fold(...decideCatalogPrices(initialPriceState, [{ model: 'p/m', pricing: cheap }], T1));
    expect(versionAt(state, T0)).to.equal(1);
    expect(priceInForce([], T0)).to.equal(undefined);
  });

  it('applies a version once, whichever way it arrives', () => {
    const [event] = decideCatalogPrices(initialPriceState, [{ model: 'p/m', pricing: cheap }], T0);
    const once = fold(event!);
    expect(evolvePrices(once, event!)).to.equal(once);
  });
});
