import type { ServerResponse } from 'node:http';
import { type OverflowReason, overflowEvent } from './change-events.js';
import type { ChangeFeed } from './change-feed.js';
import { filteredBytes, type StreamFilter } from './stream-filter.js';

/**
 * How long a stream ended for not keeping up may take to flush its last event before its socket is
 * destroyed: long enough for a client that reads slowly to learn why, short enough that one that
 * does not read frees its buffers at once.
 */
export const OVERFLOW_FLUSH_MS = 2000;

/**
 * One open event stream: a position in the shared feed and a socket. It hands the feed's entries
 * to its socket one at a time, waiting for `drain` whenever the socket says its buffer is full, so
 * that what it has not sent stays in the feed (shared) instead of piling up in its own buffers.
 */
export class EventStream {
  #next: number;
  #coveredUpTo: number;
  #started = false;
  #waiting = false;
  #ended = false;
  #lastId: string | undefined;

  constructor(
    readonly res: ServerResponse,
    readonly address: string,
    private readonly feed: ChangeFeed,
    /** The catalogue version when the stream opened: later entries are its live events. */
    version: number,
    /** Without one, the stream sends every event (the feed's bytes as they are). */
    private readonly filter?: StreamFilter,
  ) {
    this.#next = feed.head;
    this.#coveredUpTo = version;
  }

  /** The feed position of the next entry this stream will send. */
  get position(): number {
    return this.#next;
  }

  /** True once the stream was ended by the server (its socket may still be flushing). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Bytes written but not yet sent by the socket, and the feed's bytes after this stream's position. */
  unsent(): number {
    return this.res.writableLength + this.feed.bytesFrom(this.#next);
  }

  /**
   * Starts the live events, after `replay` (the bytes of what the client missed, up to version
   * `coveredUpTo`); `lastId` is the id the client holds once it has read them.
   */
  start(replay: Buffer | undefined, coveredUpTo: number, lastId: string | undefined): void {
    if (this.#ended) return;
    this.#coveredUpTo = Math.max(this.#coveredUpTo, coveredUpTo);
    this.#lastId = lastId;
    this.#started = true;
    if (replay?.length) this.#write(replay);
    this.pump();
  }

  /** Hands the feed's next entries to the socket until it asks to wait or none is left. */
  pump(): void {
    while (this.#started && !this.#waiting && !this.#ended) {
      const entry = this.feed.at(this.#next);
      if (!entry) return;
      this.#next++;
      if (entry.version <= this.#coveredUpTo) continue;
      // A filtered stream picks its events out of the shared bytes: the work is per event it is
      // offered, and an unfiltered stream does none of it.
      const bytes = this.filter ? filteredBytes(entry, this.filter) : entry.bytes;
      if (bytes === undefined) continue;
      this.#lastId = String(entry.version);
      if (this.filter) this.#write(bytes);
      else this.#writeChunk(entry.chunk, bytes);
    }
  }

  /** A comment line, to a stream that is idle (one that waits for its client has bytes on the way). */
  heartbeat(bytes: Buffer): void {
    if (this.#started && !this.#waiting && !this.#ended && this.feed.at(this.#next) === undefined) this.#write(bytes);
  }

  /**
   * Ends the stream with an `overflow` event saying why: the client reconnects with Last-Event-ID
   * and receives what it missed from the change log. The socket is destroyed if it cannot flush soon.
   */
  overflow(reason: OverflowReason): void {
    if (this.#ended) return;
    this.#ended = true;
    this.res.end(overflowEvent(reason, this.#lastId));
    const timer = setTimeout(() => this.res.destroy(), OVERFLOW_FLUSH_MS);
    timer.unref();
    this.res.once('close', () => clearTimeout(timer));
  }

  /** Ends the stream without a word (the server is closing; clients reconnect after `retry`). */
  close(): void {
    this.#ended = true;
    this.res.end();
  }

  #write(bytes: Buffer): void {
    if (this.res.write(bytes)) return;
    this.#waiting = true;
    this.res.once('drain', () => {
      this.#waiting = false;
      this.pump();
    });
  }

  /**
   * A feed entry's bytes, framed once for every stream (`chunk`), handed straight to the socket:
   * the bytes the response's own write would send (its size line, the bytes, CRLF), without its
   * four writes, cork and uncork per stream — with 10,000 streams, per version. The response's
   * head has gone before (the stream's first write), its end goes after through it, and its
   * writableLength counts the socket's. Otherwise (no chunked body, a socket gone), the plain write.
   */
  #writeChunk(chunk: Buffer, bytes: Buffer): void {
    const socket = this.res.socket;
    if (!this.res.chunkedEncoding || !this.res.headersSent || !socket || socket.destroyed || socket.writableEnded) {
      this.#write(bytes);
      return;
    }
    if (socket.write(chunk)) return;
    this.#waiting = true;
    socket.once('drain', () => {
      this.#waiting = false;
      this.pump();
    });
  }
}
