import type { Logger } from '../logger.js';
import type { Catalog, CatalogModel } from './catalog.js';
import { loadCatalogFile } from './load-catalog.js';

/**
 * Run on every catalog read from the file (at open and on each reload) before it is put in force: the
 * gateway records the catalog's prices as price versions there (src/prices), so that no model is ever
 * served without a price in force. A failure keeps the catalog out of force.
 */
export type PrepareCatalog = (catalog: Catalog) => Promise<unknown>;

/**
 * Holds the catalog in force. A reload (SIGHUP) parses the file fully and prepares it before swapping it
 * in, so a bad file (or a store that cannot record its prices) keeps the old catalog serving, and a request
 * in flight keeps the model record it resolved.
 */
export class CatalogStore {
  private catalog: Catalog;

  constructor(
    initial: Catalog,
    private readonly path: string,
    private readonly logger?: Logger,
    private readonly prepare: PrepareCatalog = async () => undefined,
  ) {
    this.catalog = initial;
  }

  static async open(path: string, logger?: Logger, prepare?: PrepareCatalog): Promise<CatalogStore> {
    const catalog = await loadCatalogFile(path);
    await prepare?.(catalog);
    const store = new CatalogStore(catalog, path, logger, prepare);
    store.warnAboutMissingKeys();
    return store;
  }

  get current(): Catalog {
    return this.catalog;
  }

  findModel(id: string): CatalogModel | undefined {
    return this.catalog.models.get(id);
  }

  /** Resolves to true when the new catalog is in force, false when the old one stays (the error is logged). */
  async reload(): Promise<boolean> {
    try {
      const catalog = await loadCatalogFile(this.path);
      await this.prepare(catalog);
      this.catalog = catalog;
      this.logger?.info({ models: this.catalog.models.size, source: this.path }, 'catalog reloaded');
      this.warnAboutMissingKeys();
      return true;
    } catch (error) {
      this.logger?.error({ err: error }, 'catalog reload failed; the previous catalog stays in force');
      return false;
    }
  }

  /**
   * One line naming every provider whose key variable is unset: each of its requests would otherwise be a
   * `502 provider_error` (the provider's 401) with nothing said at start about why.
   */
  private warnAboutMissingKeys(): void {
    const missing = [...this.catalog.providers.values()].filter((provider) => provider.apiKeyEnv && !provider.apiKey);
    if (missing.length === 0) return;
    const named = missing.map((provider) => `${provider.name} (${provider.apiKeyEnv} is not set)`).join(', ');
    this.logger?.warn({ providers: missing.map((provider) => provider.name) }, `providers without an API key, whose requests will fail: ${named}`);
  }
}
