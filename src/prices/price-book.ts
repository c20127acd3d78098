import { randomUUID } from 'node:crypto';
import type { Catalog } from '../catalog/catalog.js';
import type { PricingEntry } from '../catalog/catalog-schema.js';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent, type Subscription } from '../eventstore/event-store.js';
import type { Logger } from '../logger.js';
import { decideCatalogPrices, decideScheduledPrice, evolvePrices, initialPriceState, priceInForce, type PriceState, type PriceVersion } from './price-decider.js';
import { decodePriceEvent, priceEventToAppend } from './price-event-catalogue.js';
import { PRICES_STREAM_ID, PRICES_STREAM_PREFIX, type ModelPriceSet } from './price-events.js';

const MAX_ATTEMPTS = 5;

/** What a request, a video job's bill or a report reads of the price versions. */
export type PriceList = Pick<PriceBook, 'inForce' | 'version' | 'history'>;

/**
 * Every model's price versions, in memory, built only from the `prices-catalog` stream (a subscription),
 * and the one writer of that stream. A request is priced at `inForce(model, now)` and records its version;
 * a settle, a video job's bill and the audit find that version again with `version(model, n)`.
 *
 * Writes decide on the stream's tail and append with its revision as the expected one, so two instances
 * that reload the same catalog at once record its prices once: the loser reads the winner's version and
 * finds nothing left to record.
 */
export class PriceBook {
  private state: PriceState = initialPriceState;
  private revision = -1n;
  private subscription: Subscription | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly logger?: Logger,
  ) {}

  /** Catches up with every price version, then follows new ones (another instance's, the admin API's). */
  async start(): Promise<void> {
    this.subscription = this.store.subscribe(
      // A price set elsewhere is scheduled ahead or changes the next requests' price: 100 ms is soon enough.
      // The read models' interval, so that this reader shares their page on every tick: a slower reader
      // would start the shared page from its older position and make it carry twice the events.
      { from: 'start', streamPrefixes: [PRICES_STREAM_PREFIX], minReadIntervalMs: 100 },
      (event) => this.apply(event),
      (error) => this.logger?.error({ err: error }, 'price book subscription stopped'),
    );
    await this.subscription.caughtUp();
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  /** The version of the model's price in force at `at`; undefined when the model has none yet. */
  inForce(model: string, at: Date): PriceVersion | undefined {
    return priceInForce(this.state.get(model) ?? [], at);
  }

  /** One version of the model's price (the one a reserve recorded). */
  version(model: string, version: number): PriceVersion | undefined {
    return this.state.get(model)?.find((known) => known.version === version);
  }

  /** Every version of the model's price, oldest first (scheduled ones included). */
  history(model: string): readonly PriceVersion[] {
    return this.state.get(model) ?? [];
  }

  /**
   * Records the catalog's prices that differ from the last ones it recorded (on start and on every reload),
   * effective `now`. Resolves once they are in this book, so a reload swaps the catalog in only when every
   * model it serves has a price version.
   */
  async recordCatalog(catalog: Catalog, now: Date): Promise<ModelPriceSet[]> {
    // a deployment with rates of its own has price versions of its own, under its deployment id
    const entries = [...catalog.models.values()].flatMap((model) => [
      { model: model.id, pricing: model.pricingUsd },
      ...model.deployments.flatMap((deployment) => (deployment.pricingUsd ? [{ model: deployment.priceKey, pricing: deployment.pricingUsd }] : [])),
    ]);
    const recorded = await this.write((state) => decideCatalogPrices(state, entries, now), now, 'system:catalog');
    if (recorded.length > 0) this.logger?.info({ models: recorded.map((event) => `${event.data.model}@${event.data.version}`) }, 'recorded new catalog prices');
    return recorded;
  }

  /** A price set through the admin API, effective at `effectiveAt` (now when absent). */
  async schedule(command: { model: string; pricing: PricingEntry; effectiveAt?: Date }, now: Date, causedBy: string): Promise<PriceVersion> {
    const [event] = await this.write((state) => [decideScheduledPrice(state, command, now)], now, causedBy);
    return this.version(command.model, event!.data.version)!;
  }

  private async write(decide: (state: PriceState) => ModelPriceSet[], now: Date, causedBy: string): Promise<ModelPriceSet[]> {
    for (let attempt = 1; ; attempt++) {
      await this.refresh();
      const events = decide(this.state);
      if (events.length === 0) return [];
      const occurredAt = now.toISOString();
      const toAppend = events.map((event) =>
        priceEventToAppend(event, { id: randomUUID(), occurredAt, causedBy }),
      );
      try {
        await this.store.append(PRICES_STREAM_ID, toAppend, { expectedRevision: this.revision < 0n ? 'no_stream' : this.revision });
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
        continue;
      }
      await this.refresh();
      return events;
    }
  }

  /** Reads the stream's tail, so a decision is taken on every version recorded so far. */
  private async refresh(): Promise<void> {
    const tail = await this.store.readStream(PRICES_STREAM_ID, { fromRevision: this.revision + 1n });
    for (const event of tail) this.apply(event);
  }

  private apply(event: RecordedEvent): void {
    if (event.streamId !== PRICES_STREAM_ID || event.revision <= this.revision) return;
    this.revision = event.revision;
    this.state = evolvePrices(this.state, decodePriceEvent(event));
  }
}
