import type { Clock } from '../../core/clock.js';
import { LruCache, stringBytes } from '../../core/lru-cache.js';
import { type FetchOptions, fetchJson } from './fetch-json.js';

/** Reuse bounds of a fetched document (the CIMD draft §5.2 lets the server set them). */
export const MIN_CACHE_SECONDS = 60;
/** When the answer says nothing about caching. */
export const DEFAULT_CACHE_SECONDS = 300;

interface Entry<T> {
  value: T;
  fetchedAt: number;
  expiresAt: number;
}

/**
 * Documents fetched from URLs others chose, parsed, and kept while their Cache-Control allows
 * (between MIN_CACHE_SECONDS and the configured maximum), in a cache bounded in bytes. Failures
 * and invalid documents are never kept (§5.2: "MUST NOT cache error responses"); concurrent
 * first requests for one URL share a fetch.
 */
export class DocumentCache<T> {
  private readonly entries: LruCache<string, Entry<T>>;
  private readonly pending = new Map<string, Promise<Entry<T>>>();
  /** How many fetches were made: what a test counts, and what an operator may graph. */
  fetches = 0;

  constructor(
    private readonly options: FetchOptions & { maxCacheSeconds: number; maxCacheBytes: number },
    private readonly clock: Clock,
    private readonly parse: (json: unknown, url: string) => T,
  ) {
    this.entries = new LruCache(
      options.maxCacheBytes,
      (url, entry) => stringBytes(url) + 2 * JSON.stringify(entry.value).length + 128,
    );
  }

  /** The bytes and entries held, as counted. */
  get held(): { bytes: number; entries: number } {
    return { bytes: this.entries.bytes, entries: this.entries.size };
  }

  /**
   * The document at `url`, from the cache while it is fresh (and, with `refetchAfterMs`, fetched
   * less than that long ago: a key set that lacks a client's new key is fetched again, but not
   * at every request). Throws FetchRefused or the parser's error.
   */
  async get(url: string, options: { refetchAfterMs?: number } = {}): Promise<{ value: T; fetchedAt: number }> {
    const now = this.clock.now().getTime();
    const cached = this.entries.get(url);
    if (
      cached &&
      cached.expiresAt > now &&
      (options.refetchAfterMs === undefined || now - cached.fetchedAt < options.refetchAfterMs)
    )
      return cached;
    let fetching = this.pending.get(url);
    if (!fetching) {
      fetching = this.fetch(url).finally(() => this.pending.delete(url));
      this.pending.set(url, fetching);
    }
    return fetching;
  }

  private async fetch(url: string): Promise<Entry<T>> {
    this.fetches += 1;
    const fetched = await fetchJson(url, this.options);
    const value = this.parse(fetched.json, url);
    const seconds = Math.min(
      this.options.maxCacheSeconds,
      Math.max(MIN_CACHE_SECONDS, fetched.maxAgeSeconds ?? DEFAULT_CACHE_SECONDS),
    );
    const fetchedAt = this.clock.now().getTime();
    const entry = { value, fetchedAt, expiresAt: fetchedAt + seconds * 1000 };
    this.entries.set(url, entry);
    return entry;
  }
}
