import { RecentKeys } from '../http/recent-keys.js';
import type { ListBody } from './list-body.js';
import type { CatalogueSnapshot } from './read-model.js';
import { type SearchResult, stillValid } from './search.js';

export interface CachedAnswer {
  /** The catalogue version it was computed at, and what it drew on. */
  readonly version: number;
  readonly scope: SearchResult['scope'];
  readonly today: string;
  /** The next session start after it was computed (ms): a session that begins leaves the lists. */
  readonly until: number;
  readonly body: ListBody;
}

/**
 * Answers of recent queries, keyed by the query string. An answer stays valid while the
 * departments it drew on do not change (and, for a town search, no centre changes), so a steady
 * stream of changes elsewhere does not empty the cache; a new day does, and so does the start of
 * any session (its answer may list it). An answer is kept from its
 * query's second request on (see RecentKeys).
 */
export class ResponseCache {
  #entries = new Map<string, CachedAnswer>();
  // Four times as many keys as answers: a query asked again within that many is worth keeping.
  #asked: RecentKeys;
  constructor(private readonly maxEntries: number) {
    this.#asked = new RecentKeys(4 * maxEntries);
  }

  get(snapshot: CatalogueSnapshot, today: string, nowMs: number, key: string): CachedAnswer | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.today === today && nowMs < entry.until && stillValid(snapshot, entry.version, entry.scope)) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, answer: CachedAnswer): void {
    if (!this.#asked.seenBefore(key)) return;
    // Oldest first out: a Map iterates in insertion order.
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, answer);
  }

  /** Puts `answer` in place of the one held for `key` (a new `updatedAt`), keeping its place in line. */
  replace(key: string, answer: CachedAnswer): void {
    if (this.#entries.has(key)) this.#entries.set(key, answer);
  }
}
