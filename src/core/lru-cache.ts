/**
 * A cache of values computed from a key, bounded by an estimate of the bytes it holds, that
 * evicts the least recently used entries first. A Map iterates in insertion order: a hit moves its
 * entry to the end, so the first entry is always the one to evict.
 *
 * The estimate is the caller's (`sizeOf`): an order of magnitude is enough, the bound is there so
 * that a stream of distinct keys cannot grow the cache without end.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly sizeOf: (key: K, value: V) => number,
  ) {}

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
    this.#entries.delete(key);
    this.#entries.set(key, entry);
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
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
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

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

/** A rough size of a string key or value: UTF-16, plus a Map entry's own overhead. */
export function stringBytes(text: string): number {
  return 2 * text.length + 64;
}
