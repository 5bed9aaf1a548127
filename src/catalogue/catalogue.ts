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
  #listening = true;
  #lastRefreshFailed = false;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

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
    catalogue.#unlisten = await database.listenCatalogueChanges(
      () => void catalogue.refresh(),
      (listening) => {
        catalogue.#listening = listening;
      },
    );
    return catalogue;
  }

  get snapshot(): CatalogueSnapshot {
    return this.#snapshot;
  }

  /**
   * True while changes may not be reaching this instance: its change notifications are cut off
   * (the database is unreachable) or its last reload failed. Both retry by themselves within
   * about a second.
   */
  get stale(): boolean {
    return !this.#listening || this.#lastRefreshFailed;
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
          this.#lastRefreshFailed = false;
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
          // Keep serving the last good snapshot, and try again in a second: the notification
          // that asked for this reload will not come again.
          this.#lastRefreshFailed = true;
          this.log.warn({ err }, 'catalogue reload failed');
          if (!this.#closed && !this.#retry) {
            this.#retry = setTimeout(() => {
              this.#retry = undefined;
              void this.refresh();
            }, 1000);
            this.#retry.unref();
          }
        }
      } while (this.#again);
    })().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#unlisten?.();
    await this.#reloading;
  }
}

async function build(database: Database, urls: UrlBuilder): Promise<CatalogueSnapshot> {
  const stored = await loadCatalogue(database.db);
  return new CatalogueSnapshot(stored.version, stored.updatedAt, stored.centres, stored.sessions, urls);
}
