/**
 * Rendered pages, kept until the catalogue changes or the hour turns. Every page depends only
 * on the snapshot and on "today" in some French zone; all of them (Paris and overseas) have
 * whole-hour offsets, so a date anywhere changes only when the UTC hour does.
 */
export interface CachedPage {
  status: number;
  body: Buffer;
  /** Where the visitor's form token goes (the byte offset of FORM_TOKEN_SLOT), when the page has a form. */
  slot?: number | undefined;
}

/**
 * Rendered in place of the visitor's form token in cached pages, and replaced per answer. Not a
 * possible token (those are 22 characters), and plain ASCII that escaping leaves as it is.
 */
export const FORM_TOKEN_SLOT = 'form-token-slot-000000000';

export class PageCache {
  #epoch = '';
  #entries = new Map<string, CachedPage>();
  constructor(private readonly maxEntries: number) {}

  static epoch(version: number, now: Date): string {
    return `${version}-${now.toISOString().slice(0, 13)}`;
  }

  get(epoch: string, key: string): CachedPage | undefined {
    if (epoch !== this.#epoch) {
      this.#epoch = epoch;
      this.#entries.clear();
      return undefined;
    }
    return this.#entries.get(key);
  }

  set(epoch: string, key: string, page: CachedPage): void {
    if (epoch !== this.#epoch) return; // rendered from a snapshot that is no longer current
    // Oldest first out: a Map iterates in insertion order.
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, page);
  }
}
