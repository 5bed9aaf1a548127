/**
 * Callers waiting for a count to reach their mark (a catch-up's number, a catalogue version): each
 * is resolved by the first release() that reaches it. Resolving is all it does; it never rejects.
 */
export class Waiters {
  #waiting: { mark: number; resolve: () => void }[] = [];

  /** Resolves once release() reaches `mark`. */
  wait(mark: number): Promise<void> {
    return new Promise((resolve) => this.#waiting.push({ mark, resolve }));
  }

  /** How many wait. */
  get size(): number {
    return this.#waiting.length;
  }

  /** Whether anyone waits for `upTo` or less. */
  waitFor(upTo: number): boolean {
    return this.#waiting.some((w) => w.mark <= upTo);
  }

  /** Resolves those waiting for `upTo` or less (all of them for Infinity). */
  release(upTo: number): void {
    if (!this.waitFor(upTo)) return;
    const still: { mark: number; resolve: () => void }[] = [];
    for (const w of this.#waiting) {
      if (w.mark <= upTo) w.resolve();
      else still.push(w);
    }
    this.#waiting = still;
  }
}
