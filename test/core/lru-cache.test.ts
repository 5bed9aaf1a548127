import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/core/lru-cache.js';

/** A cache whose entries weigh what their value says. */
const weighed = (maxBytes: number) => new LruCache<string, number>(maxBytes, (_key, value) => value);

describe('LruCache', () => {
  it('keeps entries while their estimated bytes fit, and evicts the oldest first past the bound', () => {
    const cache = weighed(100);
    cache.set('a', 40);
    cache.set('b', 40);
    expect(cache.bytes).toBe(80);
    cache.set('c', 40);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(40);
    expect(cache.get('c')).toBe(40);
    expect(cache.bytes).toBe(80);
    expect(cache.size).toBe(2);
  });

  it('in insertion order, evicts the first made however often it was read', () => {
    const cache = new LruCache<string, number>(100, (_key, value) => value, { order: 'insertion' });
    cache.set('a', 30);
    cache.set('b', 30);
    cache.set('c', 30);
    expect(cache.get('a')).toBe(30);
    cache.set('d', 30);
    expect(cache.has('a')).toBe(false);
    expect([cache.has('b'), cache.has('c'), cache.has('d')]).toEqual([true, true, true]);
  });

  it('evicts as many entries as it takes for a heavy one to fit', () => {
    const cache = weighed(100);
    for (const key of ['a', 'b', 'c', 'd', 'e']) cache.set(key, 20);
    cache.set('big', 90);
    expect(cache.size).toBe(1);
    expect(cache.get('big')).toBe(90);
    expect(cache.bytes).toBe(90);
  });

  it('evicts the least recently used: a read makes an entry the newest', () => {
    const cache = weighed(100);
    cache.set('a', 30);
    cache.set('b', 30);
    cache.set('c', 30);
    expect(cache.get('a')).toBe(30);
    cache.set('d', 30);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(30);
    expect(cache.get('c')).toBe(30);
    expect(cache.get('d')).toBe(30);
  });

  it('replaces a key in place of adding to it, and never keeps a value over the whole budget', () => {
    const cache = weighed(100);
    cache.set('a', 30);
    cache.set('a', 50);
    expect(cache.bytes).toBe(50);
    expect(cache.size).toBe(1);
    cache.set('huge', 101);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')).toBe(50);
  });

  it('computes a missing value once, and keeps no error', () => {
    const cache = new LruCache<string, string>(1000, (key, value) => key.length + value.length);
    let calls = 0;
    const upper = (key: string) => {
      calls++;
      if (key === 'bad') throw new Error('no');
      return key.toUpperCase();
    };
    expect(cache.getOrCompute('x', upper)).toBe('X');
    expect(cache.getOrCompute('x', upper)).toBe('X');
    expect(calls).toBe(1);
    expect(() => cache.getOrCompute('bad', upper)).toThrow('no');
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
  });
});

describe('LruCache under a stream of new keys', () => {
  it('keeps the entries still in use and lets the others go, whatever the order they came in', () => {
    const cache = weighed(1000);
    for (let i = 0; i < 10; i++) cache.set(`hot${i}`, 10);
    for (let i = 0; i < 1000; i++) {
      for (let h = 0; h < 10; h++) expect(cache.get(`hot${h}`)).toBe(10);
      cache.set(`cold${i}`, 10);
      expect(cache.bytes).toBeLessThanOrEqual(1000);
    }
    expect(cache.size).toBe(100);
    expect(cache.get('cold0')).toBeUndefined();
    expect(cache.get('cold999')).toBe(10);
  });
});

describe('LruCache.delete', () => {
  it('forgets one key and gives its bytes back; an unknown key changes nothing', () => {
    const cache = weighed(100);
    cache.set('a', 30);
    cache.set('b', 20);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(20);
    expect(cache.bytes).toBe(20);
    cache.delete('nobody');
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(20);
  });
});
