import { setFlagsFromString } from 'node:v8';

/**
 * Lets V8's old generation grow by `percent` of what a full collection leaves before it runs the
 * next one, from now on. Left to itself, V8 lets a process that allocates slowly (as a service does
 * between bursts) grow by a tenth: with a read model of 170 MB (ten times the demo catalogue) and the
 * few dozen KB each change to it leaves behind, that is a full collection of the whole heap every
 * few hundred changes, which cost more than the changes themselves (bench/README.md, 2026-11-29).
 * Called once the read model is built: set from the start, the same flag also slowed the start, whose
 * fast allocation V8 otherwise rewards with more room. What it costs is memory: at most `percent` of
 * the live heap, in garbage awaiting that collection. 0 leaves V8's own choice.
 *
 * V8 reads this flag each time it sets the heap's next limit; Node applies flags set at run time,
 * and warns that a flag V8 read only at its start would do nothing (none here).
 */
export function relaxHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
