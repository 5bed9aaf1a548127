import { setFlagsFromString } from 'node:v8';

/**
 * Lets V8's old generation grow by `percent` of what a full collection leaves before it runs the
 * next one, from now on. Left to itself, V8 lets a process that allocates slowly (as a service does
 * between bursts) grow by a tenth: with a read model of 170 MB (ten times the demo catalogue) and the
 * few dozen KB each change to it leaves behind, that is a full collection of the whole heap about
 * every 500 changes, which with its helper threads doubled what a change cost (bench/README.md,
 * 2026-11-29).
 * Called once the read model is built: set from the start, the same flag also slowed the start, whose
 * fast allocation V8 otherwise rewards with more room. What it costs is memory: about `percent` of
 * the live heap, in garbage awaiting that collection. 0 leaves V8's own choice.
 *
 * V8 reads this flag each time it sets the heap's next limit, so setting it at run time works (Node's
 * documentation warns that a flag set after the start may do nothing: this one measurably does, on
 * Node 20 and 24). It takes the place of V8's own growth factor, its more frugal ones near its heap
 * cap or while it reduces memory included; the cap itself still holds.
 */
export function relaxHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
