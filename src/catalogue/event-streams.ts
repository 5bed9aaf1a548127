import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { EncodedVersion, OverflowReason } from './change-events.js';
import { ChangeFeed } from './change-feed.js';
import { EventStream } from './event-stream.js';
import type { StreamFilter } from './stream-filter.js';

export interface StreamLimits {
  maxPerAddress: number;
  maxStreams: number;
  /** A stream with more unsent bytes than this when a new version comes (or at a heartbeat) is ended. */
  maxStreamBytes: number;
  /** Past this many unsent bytes over all streams, the streams furthest behind are ended first. */
  maxTotalBytes: number;
  heartbeatMs: number;
}

export interface StreamStats {
  streams: number;
  /** Unsent bytes of the open streams, summed (the feed's bytes count once per stream behind them). */
  bufferedBytes: number;
  largestStreamBytes: number;
  /** Bytes the shared feed holds (each version's events once). */
  feedBytes: number;
  /** Versions encoded, each once whatever the number of streams. */
  encoded: number;
  ended: Record<OverflowReason, number>;
}

const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/**
 * The open event streams of one app: their caps (per address and in all), the feed they share, the
 * bounds on what they may leave unsent, their heartbeat, and the sockets to end when the server closes.
 */
export class EventStreams {
  readonly feed = new ChangeFeed();
  readonly #open = new Set<EventStream>();
  // Every socket that carried a stream, until it closes: after a stream the socket is done.
  readonly #sockets = new Set<Socket>();
  readonly #perAddress = new Map<string, number>();
  readonly #ended: Record<OverflowReason, number> = { too_slow: 0, server_busy: 0 };
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(readonly limits: StreamLimits) {}

  /** Why a new stream from `address` is refused, if it is. */
  refusal(address: string): 'address' | 'full' | undefined {
    if ((this.#perAddress.get(address) ?? 0) >= this.limits.maxPerAddress) return 'address';
    if (this.#open.size >= this.limits.maxStreams) return 'full';
    return undefined;
  }

  /**
   * A new stream on `res`, following the feed from now (`version`: the catalogue's version now);
   * with a `filter`, it sends only the events that match.
   */
  open(res: ServerResponse, address: string, version: number, filter?: StreamFilter): EventStream {
    const stream = new EventStream(res, address, this.feed, version, filter);
    this.#open.add(stream);
    const socket = res.socket;
    if (socket && !this.#sockets.has(socket)) {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    }
    this.#perAddress.set(address, (this.#perAddress.get(address) ?? 0) + 1);
    res.once('close', () => this.#remove(stream));
    this.#heartbeat ??= setInterval(() => this.#beat(), this.limits.heartbeatMs).unref();
    return stream;
  }

  /**
   * A new catalogue version: its events are encoded once (only if a stream is open) and handed to
   * every stream, filtered or not. Streams still too far behind from earlier versions are ended first.
   */
  publish(version: number, encode: () => Buffer | EncodedVersion): void {
    if (this.#open.size === 0) return;
    this.enforce();
    const encoded = encode();
    const { bytes, spans } = Buffer.isBuffer(encoded) ? { bytes: encoded, spans: undefined } : encoded;
    this.feed.encoded++;
    if (bytes.length === 0) return;
    this.feed.append(version, bytes, spans);
    for (const stream of this.#open) stream.pump();
    this.#trim();
  }

  /**
   * Ends each stream past its own bound, then, while all together are past the budget (counting
   * `extra` bytes about to be written, a replay), those with the most unsent bytes. Then drops the
   * feed's entries no open stream needs.
   */
  enforce(extra = 0): void {
    const { maxStreamBytes, maxTotalBytes } = this.limits;
    const live: { stream: EventStream; unsent: number }[] = [];
    let total = extra;
    for (const stream of this.#open) {
      if (stream.ended) continue;
      const unsent = stream.unsent();
      if (unsent > maxStreamBytes) this.#overflow(stream, 'too_slow');
      else {
        live.push({ stream, unsent });
        total += unsent;
      }
    }
    if (total > maxTotalBytes) {
      live.sort((a, b) => b.unsent - a.unsent);
      for (const { stream, unsent } of live) {
        if (total <= maxTotalBytes || unsent === 0) break;
        this.#overflow(stream, 'server_busy');
        total -= unsent;
      }
    }
    this.#trim();
  }

  stats(): StreamStats {
    let bufferedBytes = 0;
    let largestStreamBytes = 0;
    for (const stream of this.#open) {
      if (stream.ended) continue;
      const unsent = stream.unsent();
      bufferedBytes += unsent;
      largestStreamBytes = Math.max(largestStreamBytes, unsent);
    }
    return {
      streams: this.#open.size,
      bufferedBytes,
      largestStreamBytes,
      feedBytes: this.feed.retainedBytes,
      encoded: this.feed.encoded,
      ended: { ...this.#ended },
    };
  }

  /**
   * Ends every stream: an open one would hold the server's close until the shutdown timeout;
   * clients reconnect (to another instance) after `retry`.
   */
  endAll(): void {
    for (const stream of this.#open) stream.close();
    for (const socket of this.#sockets) {
      socket.end();
      // An end that cannot be flushed (a client that stopped reading) must not hold the close.
      setTimeout(() => socket.destroy(), 500).unref();
    }
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  #overflow(stream: EventStream, reason: OverflowReason): void {
    this.#ended[reason]++;
    stream.overflow(reason);
  }

  #beat(): void {
    this.enforce();
    for (const stream of this.#open) stream.heartbeat(HEARTBEAT);
  }

  /** Forgets a stream once its response closed. */
  #remove(stream: EventStream): void {
    if (!this.#open.delete(stream)) return;
    const left = (this.#perAddress.get(stream.address) ?? 1) - 1;
    if (left <= 0) this.#perAddress.delete(stream.address);
    else this.#perAddress.set(stream.address, left);
    this.#trim();
    if (this.#open.size === 0) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  /** Drops the feed's entries that every open stream has handed to its socket (or that only ended ones needed). */
  #trim(): void {
    let oldest = this.feed.head;
    for (const stream of this.#open) if (!stream.ended) oldest = Math.min(oldest, stream.position);
    this.feed.trimBefore(oldest);
  }
}
