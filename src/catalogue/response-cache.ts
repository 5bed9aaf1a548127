import { LruCache, stringBytes } from '../core/lru-cache.js';
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

/** What an answer holds besides its bytes: the entry, its scope, its key's copy. */
const ANSWER_OVERHEAD_BYTES = 512;

/**
 * Answers of recent queries, keyed by the query string, within `maxBytes` (their bytes as
 * counted, first in, first out: they are cut from shared slabs, see LruCache). An answer stays
 * valid while the departments it drew on do not change (and, for a town search, no centre
 * changes), so a steady stream of changes elsewhere does not empty the cache; a new day does, and
 * so does the start of any session (its answer may list it). An answer is kept from its query's
 * second request on (see RecentKeys).
 */
export class ResponseCache {
  readonly #entries: LruCache<string, CachedAnswer>;
  // Recent keys for at most as many answers as the budget holds at 8 KB each (2,048 at 16 MB; a key
  // asked again within 1,024 others is always recognised): first in, first out, an answer admitted
  // stays for about that many admissions, so a query not asked again within that many others would
  // rarely be found, and keeping it costs more than answering it again
  // (it lives long enough to be promoted, then the collector must reclaim it from the old
  // generation). A window four times as long admitted about half of the 6,000 distinct searches of
  // `npm run bench`, none found again: 74–105 µs of server CPU per request at 3,000 requests/s
  // against 61–86 µs with this one, and 59–82 µs keeping none.
  readonly #asked: RecentKeys;
  constructor(maxBytes: number) {
    this.#entries = new LruCache(
      maxBytes,
      (key, answer) => stringBytes(key) + answer.body.bytes.length + ANSWER_OVERHEAD_BYTES,
      { order: 'insertion' },
    );
    this.#asked = new RecentKeys(Math.ceil(maxBytes / 8192));
  }

  /** The bytes the answers hold, as counted. */
  get bytes(): number {
    return this.#entries.bytes;
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
    this.#entries.set(key, answer);
  }

  /** Puts `answer` in place of the one held for `key` (a new `updatedAt`), keeping its place in line. */
  replace(key: string, answer: CachedAnswer): void {
    if (this.#entries.has(key)) this.#entries.set(key, answer);
  }
}
