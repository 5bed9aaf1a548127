import type { EventSpan } from './stream-filter.js';

/** One catalogue version's events, as the bytes every unfiltered stream sends. */
export interface FeedEntry {
  readonly seq: number;
  readonly version: number;
  readonly bytes: Buffer;
  /** Bytes appended to the feed before this entry: what a stream at this entry still has to send is `end - start`. */
  readonly start: number;
  /** Where each session's event lies in `bytes`, for filtered streams; none for a `reset`. */
  readonly spans?: readonly EventSpan[] | undefined;
  /**
   * `bytes` as one chunk of an HTTP/1.1 chunked body (size line, bytes, CRLF): what an unfiltered
   * stream hands its socket whole, framed once for every stream (see EventStream).
   */
  readonly chunk: Buffer;
}

/** `bytes` framed as one chunk of a chunked body, as Node's ServerResponse frames each write. */
export function chunkOf(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`, 'latin1'), bytes, CRLF]);
}

const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * The recent events of the change stream, built once and shared by every open stream: each stream
 * holds a position in the feed, not a copy. An entry is kept until every stream has handed it to its
 * socket (or was ended), so the feed holds at most what the slowest open stream has not sent yet.
 */
export class ChangeFeed {
  #entries: FeedEntry[] = [];
  #head = 0;
  #end = 0;
  #retained = 0;
  /** Updates encoded since start (each once, whatever the number of streams). */
  encoded = 0;

  /** The position the next entry will have: where a stream opened now starts. */
  get head(): number {
    return this.#head;
  }

  /** Bytes the feed holds now. */
  get retainedBytes(): number {
    return this.#retained;
  }

  append(version: number, bytes: Buffer, spans?: readonly EventSpan[]): void {
    this.#entries.push({ seq: this.#head++, version, bytes, start: this.#end, spans, chunk: chunkOf(bytes) });
    this.#end += bytes.length;
    this.#retained += bytes.length;
  }

  /** The entry at position `seq`, if still held. */
  at(seq: number): FeedEntry | undefined {
    const first = this.#entries[0];
    return first ? this.#entries[seq - first.seq] : undefined;
  }

  /** Bytes from position `seq` to the head: what a stream at `seq` has not handed to its socket. */
  bytesFrom(seq: number): number {
    const entry = this.at(seq);
    return entry ? this.#end - entry.start : 0;
  }

  /** Drops the entries before position `seq` (no open stream needs them any more). */
  trimBefore(seq: number): void {
    const first = this.#entries[0];
    if (!first || seq <= first.seq) return;
    const gone = this.#entries.splice(0, seq - first.seq);
    for (const entry of gone) this.#retained -= entry.bytes.length;
  }
}
