import type { Logger } from '../logger.js';
import type { Catalog, CatalogModel } from './catalog.js';
import { loadCatalogFile } from './load-catalog.js';

/**
 * Holds the catalog in force. A reload (SIGHUP) parses the file fully before swapping it in, so a bad
 * file keeps the old catalog serving, and a request in flight keeps the model record it resolved.
 */
export class CatalogStore {
  private catalog: Catalog;

  constructor(
    initial: Catalog,
    private readonly path: string,
    private readonly logger?: Logger,
  ) {
    this.catalog = initial;
  }

  static async open(path: string, logger?: Logger): Promise<CatalogStore> {
    return new CatalogStore(await loadCatalogFile(path), path, logger);
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
      this.catalog = await loadCatalogFile(this.path);
      this.logger?.info({ models: this.catalog.models.size, source: this.path }, 'catalog reloaded');
      return true;
    } catch (error) {
      this.logger?.error({ err: error }, 'catalog reload failed; the previous catalog stays in force');
      return false;
    }
  }
}
