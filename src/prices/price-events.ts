import type { PricingEntry } from '../catalog/catalog-schema.js';

/**
 * Events of the `prices-catalog` stream: every price a model has had. A price version is a model's whole
 * set of rates (the catalog's USD strings, service tiers included), numbered 1, 2, 3… per model, and in
 * force from its effective time until a version with a later effective time takes over. Every reserve and
 * settle records the version it was priced at, so a charge can be re-priced from the log at any time.
 *
 * `catalog`: the catalog file's prices, recorded when a gateway starts or reloads its catalog and they
 * differ from the last catalog-sourced version (effective at once). `admin`: set through the admin API,
 * effective at once or at a time to come.
 */
export interface ModelPriceSet {
  type: 'ModelPriceSet';
  data: {
    model: string;
    version: number;
    /** ISO time from which the version is in force. */
    effectiveAt: string;
    source: PriceSource;
    pricing: PricingEntry;
  };
}

export type PriceSource = 'catalog' | 'admin';
export type PriceEvent = ModelPriceSet;

export const PRICES_STREAM_ID = 'prices-catalog';
/** The subscription prefix of the price streams (one today). */
export const PRICES_STREAM_PREFIX = 'prices-';
