import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/connect.js';
import { CatalogueSnapshot, type UrlBuilder } from './read-model.js';
import { loadCatalogue, readCatalogueVersion } from './repository.js';

/**
 * Holds the current read model and keeps it in step with the database: on every change
 * notification it reloads and swaps the snapshot whole. Reloads are coalesced, so a burst of
 * writes costs at most one reload in flight plus one after it.
 */
export class Catalogue {
  #snapshot: CatalogueSnapshot;
  #reloading: Promise<void> | undefined;
  #again = false;
  #unlisten: (() => Promise<void>) | undefined;

  private constructor(
    private readonly database: Database,
    private readonly urls: UrlBuilder,
    private readonly log: FastifyBaseLogger,
    initial: CatalogueSnapshot,
  ) {
    this.#snapshot = initial;
  }

  static async open(database: Database, urls: UrlBuilder, log: FastifyBaseLogger): Promise<Catalogue> {
    const catalogue = new Catalogue(database, urls, log, await build(database, urls));
    catalogue.#unlisten = await database.listenCatalogueChanges(() => void catalogue.refresh());
    return catalogue;
  }

  get snapshot(): CatalogueSnapshot {
    return this.#snapshot;
  }

  /** Reloads if the stored catalogue changed since the current snapshot. Never rejects. */
  refresh(): Promise<void> {
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      do {
        this.#again = false;
        try {
          const version = await readCatalogueVersion(this.database.db);
          if (version === this.#snapshot.version) continue;
          const started = performance.now();
          this.#snapshot = await build(this.database, this.urls);
          this.log.info(
            {
              version: this.#snapshot.version,
              sessions: this.#snapshot.sessions.length,
              ms: Math.round(performance.now() - started),
            },
            'catalogue reloaded',
          );
        } catch (err) {
          // Keep serving the last good snapshot; the next notification or health check retries.
          this.log.warn({ err }, 'catalogue reload failed');
        }
      } while (this.#again);
    })().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  async close(): Promise<void> {
    await this.#unlisten?.();
    await this.#reloading;
  }
}

async function build(database: Database, urls: UrlBuilder): Promise<CatalogueSnapshot> {
  const stored = await loadCatalogue(database.db);
  return new CatalogueSnapshot(stored.version, stored.updatedAt, stored.centres, stored.sessions, urls);
}
