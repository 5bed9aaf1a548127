import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The open event streams of one app: how many per address and in all (each holds a socket for as
 * long as its client listens), and the sockets to end when the server closes.
 */
export class OpenStreams {
  readonly #open = new Set<ServerResponse>();
  // Every socket that carried a stream, until it closes: after a stream the socket is done.
  readonly #sockets = new Set<Socket>();
  readonly #perAddress = new Map<string, number>();

  constructor(
    readonly maxPerAddress: number,
    readonly maxStreams: number,
  ) {}

  /** Why a new stream from `address` is refused, if it is. */
  refusal(address: string): 'address' | 'full' | undefined {
    if ((this.#perAddress.get(address) ?? 0) >= this.maxPerAddress) return 'address';
    if (this.#open.size >= this.maxStreams) return 'full';
    return undefined;
  }

  add(res: ServerResponse, address: string): void {
    this.#open.add(res);
    const socket = res.socket;
    if (socket && !this.#sockets.has(socket)) {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    }
    this.#perAddress.set(address, (this.#perAddress.get(address) ?? 0) + 1);
  }

  /** Forgets a stream once (its close may be heard more than once). */
  remove(res: ServerResponse, address: string): void {
    if (!this.#open.delete(res)) return;
    const left = (this.#perAddress.get(address) ?? 1) - 1;
    if (left <= 0) this.#perAddress.delete(address);
    else this.#perAddress.set(address, left);
  }

  /**
   * Ends every stream: an open one would hold the server's close until the shutdown timeout;
   * clients reconnect (to another instance) after `retry`.
   */
  endAll(): void {
    for (const res of this.#open) res.end();
    for (const socket of this.#sockets) {
      socket.end();
      // An end that cannot be flushed (a client that stopped reading) must not hold the close.
      setTimeout(() => socket.destroy(), 500).unref();
    }
  }
}
