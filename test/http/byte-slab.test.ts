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

  it('encodes texts in UTF-8 into slices that never overlap, whatever their characters', () => {
    const slab = new ByteSlab(1024);
    // ASCII, accents and signs (2 and 3 bytes), a character outside the BMP (4 bytes for 2 units)
    const texts = Array.from({ length: 60 }, (_, i) => `${'é€’a'.repeat(i % 7)}<p>${i}</p>${'🚗'.repeat(i % 3)}`);
    const encoded = texts.map((t) => slab.utf8(t));
    encoded.forEach((b, i) => {
      expect(b.byteOffset % 8).toBe(0);
      expect(b.equals(Buffer.from(texts[i] as string))).toBe(true);
    });
    expect(new Set(encoded.map((b) => b.buffer)).size).toBeGreaterThan(1);
  });

  it('gives a text that could take more than an eighth of a slab a buffer of its own', () => {
    const slab = new ByteSlab(1024);
    const small = slab.utf8('abc');
    const large = slab.utf8('é'.repeat(50)); // 100 bytes, but up to 150 for 50 units
    expect(large.buffer).not.toBe(small.buffer);
    expect(large.toString()).toBe('é'.repeat(50));
  });
});
