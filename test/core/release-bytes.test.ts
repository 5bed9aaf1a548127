import { describe, expect, it } from 'vitest';
import { releaseBytes } from '../../src/core/release-bytes.js';

// releaseBytes gives a buffer's memory back at once (core/release-bytes.ts): the buffer it was
// given is empty afterwards, and a slice of memory others share is never taken from them.
describe('releaseBytes', () => {
  it('detaches a buffer that owns its whole memory', () => {
    const bytes = Buffer.alloc(1 << 20, 7);
    releaseBytes(bytes);
    expect(bytes.length).toBe(0);
    expect(bytes.buffer.byteLength).toBe(0);
  });

  it('leaves a slice of a larger memory alone, and what shares it', () => {
    const whole = new Uint8Array(64).fill(3);
    const slice = whole.subarray(8, 16);
    releaseBytes(slice);
    expect(slice.length).toBe(8);
    expect([...whole]).toEqual(new Array(64).fill(3));
  });

  it('leaves a small buffer from the shared pool alone', () => {
    const pooled = Buffer.from('a few bytes');
    releaseBytes(pooled);
    expect(pooled.toString()).toBe('a few bytes');
  });
});
