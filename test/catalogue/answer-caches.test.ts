import { describe, expect, it } from 'vitest';
import { KNOWN_CLIENTS_BYTES, KnownClients } from '../../src/auth/known-clients.js';
import type { ListBody } from '../../src/catalogue/list-body.js';
import type { CatalogueSnapshot } from '../../src/catalogue/read-model.js';
import { type CachedAnswer, ResponseCache } from '../../src/catalogue/response-cache.js';
import type { Db } from '../../src/db/connect.js';
import { PageCache } from '../../src/site/page-cache.js';

/*
 * The caches that keep answers for reuse hold at most their budget in bytes, however many distinct
 * requests arrive (issue 23: RSS grew 184 → 498 MB over 200,000 distinct queries with caches
 * bounded only by a count of entries of any size).
 */

const MB = 1024 * 1024;

function answer(bytes: number): CachedAnswer {
  const body = { bytes: Buffer.alloc(bytes), iso: '', isoAt: 0, etag: 'W/"x"' } as unknown as ListBody;
  return {
    version: 1,
    scope: { kind: 'all' } as unknown as CachedAnswer['scope'],
    today: '2030-03-01',
    until: Number.POSITIVE_INFINITY,
    body,
  };
}

describe('the REST answer cache', () => {
  it('holds at most its budget, first in first out, however large the answers', () => {
    const cache = new ResponseCache(1 * MB);
    for (let i = 0; i < 2000; i++) {
      const key = `dept=${i}&limit=100`;
      cache.set(key, answer(100_000)); // a first request is not kept…
      cache.set(key, answer(100_000)); // …its second is
      expect(cache.bytes).toBeLessThanOrEqual(1 * MB);
    }
    expect(cache.bytes).toBeGreaterThan(0.8 * MB);
  });
});

describe("the REST answer cache's admission", () => {
  // As the route does: set after every computed answer; 16 MB hold about 2,000 answers of 8 KB.
  const ask = (cache: ResponseCache, key: string) => cache.set(key, answer(8_000));

  it('keeps a query asked again within a few hundred others', () => {
    const cache = new ResponseCache(16 * MB);
    for (let i = 0; i < 3000; i++) {
      ask(cache, `dept=${i}&limit=20`);
      if (i >= 500) ask(cache, `dept=${i - 500}&limit=20`);
    }
    expect(cache.bytes).toBeGreaterThan(8 * MB);
  });

  it('keeps every one of 1,000 queries asked in turn, again and again, whatever their keys hash to', () => {
    const cache = new ResponseCache(16 * MB);
    for (let round = 0; round < 3; round++) for (let i = 0; i < 1000; i++) ask(cache, `city=town-${i}&limit=20`);
    // Each counts its 8,000 bytes and about 600 more: all 1,000 kept (a table of one hash a slot lost a fifth).
    expect(cache.bytes).toBeGreaterThanOrEqual(1000 * 8_600);
  });

  it('keeps none of 6,000 distinct queries asked in turn, which it could not hold until asked again', () => {
    const cache = new ResponseCache(16 * MB);
    for (let round = 0; round < 3; round++) for (let i = 0; i < 6000; i++) ask(cache, `city=town-${i}&limit=20`);
    expect(cache.bytes).toBe(0);
  });
});

describe('the page cache', () => {
  it('holds at most its budget of rendered pages within one catalogue version and hour', () => {
    const cache = new PageCache(1 * MB);
    const time = '2030-03-01T10'; // an hour (PageCache.timeKey)
    const snapshot = { version: 7, turn: 0 } as CatalogueSnapshot;
    const page = { status: 200, version: 7, turn: 0, scope: undefined, tag: `7-${time}` };
    cache.get(snapshot, time, '/');
    for (let i = 0; i < 500; i++) {
      cache.set(time, `/?city=${i}`, { ...page, body: Buffer.alloc(60_000) });
      expect(cache.bytes).toBeLessThanOrEqual(1 * MB);
    }
    expect(cache.get(snapshot, time, '/?city=499')?.status).toBe(200);
    expect(cache.get(snapshot, time, '/?city=0')).toBeUndefined();
  });

  it('keeps only the stamp of a page asked once, and its stamps within their own budget', () => {
    const cache = new PageCache(1 * MB, 64 * 1024);
    const time = '2030-03-01T10';
    const snapshot = { version: 7, turn: 0 } as CatalogueSnapshot;
    const page = { status: 200, version: 7, turn: 0, scope: undefined, tag: `7-${time}`, body: Buffer.alloc(20_000) };
    cache.get(snapshot, time, '/');
    for (let i = 0; i < 100_000; i++) cache.remember(time, `/?city=${i}`, page);
    expect(cache.bytes).toBe(0);
    expect(cache.get(snapshot, time, '/?city=99999')).toBeUndefined();
    expect(cache.stamp(snapshot, time, '/?city=99999')).toEqual({ ...page, body: undefined });
    // 64 KB of stamps at ~180 bytes each: the oldest are gone.
    expect(cache.stamp(snapshot, time, '/?city=99000')).toBeUndefined();
    // A new version without a scope: the stamp no longer holds.
    expect(cache.stamp({ version: 8, turn: 0 } as CatalogueSnapshot, time, '/?city=99999')).toBeUndefined();
  });
});

describe('the known OAuth clients', () => {
  it('remembers at most its budget of client ids, the newest kept', async () => {
    const clients = new KnownClients(undefined as unknown as Db);
    const count = Math.ceil(KNOWN_CLIENTS_BYTES / 100); // more than fit, whatever their size
    for (let i = 0; i < count; i++) clients.remember(`client-${i}-${'x'.repeat(30)}`);
    expect(clients.held.bytes).toBeLessThanOrEqual(KNOWN_CLIENTS_BYTES);
    expect(clients.held.clients).toBeLessThan(count);
    expect(await clients.has(`client-${count - 1}-${'x'.repeat(30)}`)).toBe(true);
  });
});
