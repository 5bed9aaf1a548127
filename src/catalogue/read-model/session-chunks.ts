import type { SessionEntry } from './entries.js';
import { byEntry, firstOnOrAfter, partitionPoint } from './session-order.js';
import { updateSorted } from './sorted-lists.js';

// About a thousand entries a chunk: a changed session copies its chunk (a few microseconds) and the
// array of chunks (about 200 at ten times the demo), where copying the one list of 200,000 entries
// and collecting it took 1.3 ms a change (bench/micro/apply-cost.ts).
const CHUNK = 1024;
// A chunk grown past this is split; one shrunk below MIN joins the chunk before it when they fit.
const MAX = 2 * CHUNK;
const MIN = CHUNK / 4;

/**
 * The scheduled sessions in session order, as consecutive chunks: every entry of a chunk comes
 * before every entry of the next, and no chunk is empty. Immutable: `with` copies only the chunks a
 * change touches and shares the rest (and, through ListColumns, their search columns).
 */
export class SessionChunks implements Iterable<SessionEntry> {
  private constructor(
    readonly chunks: readonly (readonly SessionEntry[])[],
    readonly length: number,
  ) {}

  /** From a list in session order. */
  static of(list: readonly SessionEntry[]): SessionChunks {
    const chunks: SessionEntry[][] = [];
    for (let i = 0; i < list.length; i += CHUNK) chunks.push(list.slice(i, i + CHUNK));
    return new SessionChunks(chunks, list.length);
  }

  *[Symbol.iterator](): IterableIterator<SessionEntry> {
    for (const chunk of this.chunks) yield* chunk;
  }

  /** The entries from the first whose day1 is on or after `day`, in order. */
  *onOrAfter(day: string): IterableIterator<SessionEntry> {
    const { chunks } = this;
    const first = partitionPoint(chunks, (c) => (c[c.length - 1] as SessionEntry).record.day1 < day);
    for (let k = first; k < chunks.length; k++) {
      const chunk = chunks[k] as readonly SessionEntry[];
      for (let i = k === first ? firstOnOrAfter(chunk, day) : 0; i < chunk.length; i++) yield chunk[i] as SessionEntry;
    }
  }

  /** A copy without `removed` (entries it holds) and with `added`, sharing every untouched chunk. */
  with(removed: readonly SessionEntry[], added: readonly SessionEntry[]): SessionChunks {
    if (removed.length === 0 && added.length === 0) return this;
    if (this.chunks.length === 0) return SessionChunks.of(updateSorted([], [], added));
    const changes = new Map<number, { removed: SessionEntry[]; added: SessionEntry[] }>();
    const slot = (k: number) => {
      let c = changes.get(k);
      if (!c) {
        c = { removed: [], added: [] };
        changes.set(k, c);
      }
      return c;
    };
    for (const r of removed) slot(this.#chunkOf(r)).removed.push(r);
    for (const a of added) slot(this.#chunkOf(a)).added.push(a);
    const out: (readonly SessionEntry[])[] = [];
    let length = 0;
    for (let k = 0; k < this.chunks.length; k++) {
      const old = this.chunks[k] as readonly SessionEntry[];
      const c = changes.get(k);
      const chunk = c ? updateSorted(old, c.removed, c.added) : old;
      length += chunk.length;
      if (chunk === old) out.push(chunk);
      else if (chunk.length > MAX) {
        // In even parts, so that none is left small.
        const size = Math.ceil(chunk.length / Math.ceil(chunk.length / CHUNK));
        for (let i = 0; i < chunk.length; i += size) out.push(chunk.slice(i, i + size));
      } else if (chunk.length >= MIN) out.push(chunk);
      else if (chunk.length > 0) {
        const before = out[out.length - 1];
        if (before && before.length + chunk.length <= MAX) out[out.length - 1] = before.concat(chunk);
        else out.push(chunk);
      }
    }
    return new SessionChunks(out, length);
  }

  /**
   * The chunk an entry is in or goes into: the last whose first entry is not after it (the first
   * chunk for an entry before all).
   */
  #chunkOf(e: SessionEntry): number {
    return Math.max(0, partitionPoint(this.chunks, (c) => byEntry(c[0] as SessionEntry, e) <= 0) - 1);
  }
}
