import type { SessionEntry } from './entries.js';
import { byEntry, partitionPoint } from './session-order.js';
import { splitChanges, updateSorted } from './sorted-lists.js';

// About five hundred entries a chunk of the list of all: a changed session copies its chunk and the
// array of chunks (about 400 at ten times the demo), where copying the one list of 200,000 entries
// and collecting it took 1.3 ms a change. What a change leaves for the next full collection is
// least about there (bench/micro/apply-cost.ts: 27.5 KB a change at 10× with 1,024, 24.5 with 512).
export const LIST_CHUNK = 512;
// A department's list (3,400 sessions on average over changes at ten times the demo, Paris 8,200)
// in smaller chunks: a change copies one of them, not the department's whole list.
export const DEPARTMENT_CHUNK = 256;

/**
 * The scheduled sessions in session order, as consecutive chunks: every entry of a chunk comes
 * before every entry of the next, and no chunk is empty. Immutable: `with` copies only the chunks a
 * change touches and shares the rest (and, through ListColumns, their search columns).
 */
export class SessionChunks implements Iterable<SessionEntry> {
  private constructor(
    readonly chunks: readonly (readonly SessionEntry[])[],
    readonly length: number,
    /**
     * The entries of a chunk as made: a chunk grown past twice this is split; one shrunk below a
     * quarter of it joins the chunk before it when they fit.
     */
    readonly size: number,
  ) {}

  /** From a list in session order. */
  static of(list: readonly SessionEntry[], size = LIST_CHUNK): SessionChunks {
    const chunks: SessionEntry[][] = [];
    for (let i = 0; i < list.length; i += size) chunks.push(list.slice(i, i + size));
    return new SessionChunks(chunks, list.length, size);
  }

  *[Symbol.iterator](): IterableIterator<SessionEntry> {
    for (const chunk of this.chunks) yield* chunk;
  }

  /** The entries from the first whose day1 is on or after `day`, in order. */
  onOrAfter(day: string): IterableIterator<SessionEntry> {
    return this.from((e) => e.record.day1 < day);
  }

  /**
   * The entries from the first for which `isBefore` does not hold, in order: it must hold for a
   * prefix of the list (found by binary search, in the chunks and then in one).
   */
  *from(isBefore: (e: SessionEntry) => boolean): IterableIterator<SessionEntry> {
    const { chunks } = this;
    const first = partitionPoint(chunks, (c) => isBefore(c[c.length - 1] as SessionEntry));
    for (let k = first; k < chunks.length; k++) {
      const chunk = chunks[k] as readonly SessionEntry[];
      for (let i = k === first ? partitionPoint(chunk, isBefore) : 0; i < chunk.length; i++)
        yield chunk[i] as SessionEntry;
    }
  }

  /** A copy without `removed` (entries it holds) and with `added`, sharing every untouched chunk. */
  with(removed: readonly SessionEntry[], added: readonly SessionEntry[]): SessionChunks {
    if (removed.length === 0 && added.length === 0) return this;
    if (this.chunks.length === 0) return SessionChunks.of(updateSorted([], [], added), this.size);
    const changes = splitChanges(removed, added, (e) => this.#chunkOf(e));
    const max = 2 * this.size;
    const min = this.size / 4;
    const out: (readonly SessionEntry[])[] = [];
    let length = 0;
    for (let k = 0; k < this.chunks.length; k++) {
      const old = this.chunks[k] as readonly SessionEntry[];
      const c = changes.get(k);
      const chunk = c ? updateSorted(old, c.removed, c.added) : old;
      length += chunk.length;
      if (chunk === old) out.push(chunk);
      else if (chunk.length > max) {
        // In even parts, so that none is left small.
        const size = Math.ceil(chunk.length / Math.ceil(chunk.length / this.size));
        for (let i = 0; i < chunk.length; i += size) out.push(chunk.slice(i, i + size));
      } else if (chunk.length >= min) out.push(chunk);
      else if (chunk.length > 0) {
        const before = out[out.length - 1];
        if (before && before.length + chunk.length <= max) out[out.length - 1] = before.concat(chunk);
        else out.push(chunk);
      }
    }
    return new SessionChunks(out, length, this.size);
  }

  /**
   * The chunk an entry is in or goes into: the last whose first entry is not after it (the first
   * chunk for an entry before all).
   */
  #chunkOf(e: SessionEntry): number {
    return Math.max(0, partitionPoint(this.chunks, (c) => byEntry(c[0] as SessionEntry, e) <= 0) - 1);
  }
}
