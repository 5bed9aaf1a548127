import { describe, expect, it } from 'vitest';
import { ByteSlab } from '../../src/http/byte-slab.js';

describe('ByteSlab', () => {
  it('hands out slices that never overlap, each on 8 bytes, moving to a new slab when one is full', () => {
    const slab = new ByteSlab(1024);
    const taken = Array.from({ length: 40 }, (_, i) => slab.take(1 + ((i * 37) % 120)));
    taken.forEach((b, i) => {
      expect(b.length).toBe(1 + ((i * 37) % 120));
      expect(b.byteOffset % 8).toBe(0);
      b.fill(i);
    });
    // Each slice still holds what was written to it: no later slice was cut over it.
    taken.forEach((b, i) => {
      expect([...b].every((x) => x === i)).toBe(true);
    });
    expect(new Set(taken.map((b) => b.buffer)).size).toBeGreaterThan(1);
  });

  it('gives a large request a buffer of its own', () => {
    const slab = new ByteSlab(1024);
    const small = slab.take(16);
    const large = slab.take(200);
    expect(large.buffer).not.toBe(small.buffer);
    expect(large.length).toBe(200);
  });
});
