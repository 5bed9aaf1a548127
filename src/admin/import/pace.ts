import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long an import works before it lets the event loop answer other requests (health, reads). */
const SLICE_MS = 10;

/**
 * Gives the event loop back between slices of an import's work: a batch of 50,000 records takes
 * seconds to read and check, and the instance must go on answering meanwhile. Call
 * `tick()` once per unit of work (a record, a chunk of text); it resolves at once while the slice
 * lasts, and after a turn of the event loop once it has run SLICE_MS.
 */
export class Pacer {
  private since = performance.now();

  async tick(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await nextTurn();
    this.since = performance.now();
  }
}
