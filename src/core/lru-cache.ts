/**
 * A cache of values computed from a key, bounded by an estimate of the bytes it holds, that
 * evicts the least recently used entries first — as a second-chance (CLOCK) queue, the usual
 * approximation of LRU: a hit only marks its entry (a Map moving each hit to its end cost three
 * times a plain look-up, on the search's hot path); eviction takes the oldest entry not used since
 * it was last passed over, and moves a used one to the end of the queue, unmarked.
 *
 * The estimate is the caller's (`sizeOf`): an order of magnitude is enough, the bound is there so
 * that a stream of distinct keys cannot grow the cache without end.
 *
 * `order: 'insertion'` makes it first in, first out (a hit marks nothing): for values cut from
 * shared slabs (http/byte-slab.ts), which are freed only once every value in them is gone, so
 * evicting in the order they were made frees the oldest slabs first.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, { value: V; bytes: number; used: boolean }>();
  #bytes = 0;

  readonly #markHits: boolean;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (key: K, value: V) => number,
    options: { order?: 'recency' | 'insertion' } = {},
  ) {
    this.#markHits = options.order !== 'insertion';
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The bytes held, as estimated by `sizeOf`. */
  get bytes(): number {
    return this.#bytes;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#markHits) entry.used = true;
    return entry.value;
  }

  set(key: K, value: V): void {
    const bytes = this.sizeOf(key, value);
    const previous = this.#entries.get(key);
    if (previous !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= previous.bytes;
    }
    // A value larger than the whole budget would only empty the cache: it is not kept.
    if (bytes > this.maxBytes) return;
    // Room first, so that the newcomer is never the one evicted.
    while (this.#bytes + bytes > this.maxBytes) this.#evictOne();
    this.#entries.set(key, { value, bytes, used: false });
    this.#bytes += bytes;
  }

  /** The value for `key`, computed by `of` and kept when not held. Errors are not kept. */
  getOrCompute(key: K, of: (key: K) => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = of(key);
      this.set(key, value);
    }
    return value;
  }

  /** Evicts the oldest entry not used since it was last passed over; used ones go to the end, unmarked. */
  #evictOne(): void {
    for (const [key, entry] of this.#entries) {
      this.#entries.delete(key);
      if (entry.used) {
        entry.used = false;
        this.#entries.set(key, entry);
      } else {
        this.#bytes -= entry.bytes;
        return;
      }
    }
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

/** A rough size of a string key or value: UTF-16, plus a Map entry's own overhead. */
export function stringBytes(text: string): number {
  return 2 * text.length + 64;
}
