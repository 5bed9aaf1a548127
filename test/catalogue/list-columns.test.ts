import { describe, expect, it } from 'vitest';
import { orderKey } from '../../src/catalogue/list-columns.js';
import {
  CatalogueSnapshot,
  type CentreRecord,
  compareSessions,
  type SessionRecord,
  urlBuilder,
} from '../../src/catalogue/read-model.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import { searchStages } from '../../src/catalogue/search.js';
import { addDays } from '../../src/core/clock.js';
import { referenceAll } from '../helpers/reference-search.js';

const centre = (n: number): CentreRecord => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  slug: `centre-${n}`,
  name: `Centre ${n}`,
  address: `${n} rue de la Gare`,
  city: 'Lyon',
  postalCode: '69003',
  deptCode: '69',
  lat: 45.76,
  lng: 4.86,
  agrementNumber: `R2306900${n}01`,
});

let seq = 0;
const session = (centreId: string, day1: string, startTime: string, priceCents: number): SessionRecord => {
  const next = addDays(day1, 1);
  seq++;
  return {
    id: `10000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    centreId,
    courseNumber: `C${seq}`,
    day1,
    day2: next,
    startTime,
    endTime: '16:30',
    priceCents,
    capacity: 20,
    spotsAvailable: 5,
  };
};

const NOW = new Date('2026-11-24T09:00:00Z');

/** Every page of a search, walked with its cursors. */
function walk(snapshot: CatalogueSnapshot, query: SearchQuery): string[] {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = searchStages(snapshot, cursor ? { ...query, cursor } : query, NOW);
    ids.push(...page.entries.map((e) => e.record.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

describe('the numeric session-order key', () => {
  it('never orders two sessions against compareSessions, out-of-range days, late hours and huge prices included', () => {
    const days = ['1969-12-31', '1970-01-01', '2026-11-25', '2149-06-06', '2149-06-07', '2150-01-06', '2150-01-07'];
    const times = ['00:00', '08:30', '09:00', '10:00', '25:00', '29:59'];
    const prices = [1, 22_900, 67_108_863, 67_108_864, 1_000_000_000];
    const records = days.flatMap((d) => times.flatMap((t) => prices.map((p) => session('c', d, t, p))));
    for (const a of records)
      for (const b of records) {
        const byKey = orderKey(a.day1, a.startTime, a.priceCents) - orderKey(b.day1, b.startTime, b.priceCents);
        // Keys may tie where the order does not; they never disagree with it.
        if (byKey !== 0)
          expect(Math.sign(byKey), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(
            Math.sign(compareSessions(a, b)),
          );
      }
  });

  it('gives NaN for fields not in their stored formats', () => {
    expect(orderKey('2026-02-30', '08:30', 100)).toBeNaN();
    expect(orderKey('2026-11-25', '8:30', 100)).toBeNaN();
    expect(orderKey('not a day', '08:30', 100)).toBeNaN();
  });
});

describe('searches over sessions far in the future', () => {
  it('keep session order and lose nothing page after page, for sessions dated after 2149 (a mistyped year)', () => {
    const [c1, c2] = [centre(1), centre(2)];
    // A before B in session order (days differ), though B starts earlier in the day.
    const a = session(c1.id, '2150-01-06', '10:00', 22_900);
    const b = session(c2.id, '2150-01-07', '09:00', 22_900);
    const c = session(c1.id, '2026-12-01', '08:30', 22_900);
    const snapshot = CatalogueSnapshot.build(1, new Date(), [c1, c2], [a, b, c], urlBuilder('https://x.test'));
    const queries: SearchQuery[] = [
      { limit: 1, includeUnavailable: false, city: 'lyon', from: '2150-01-01' },
      { limit: 1, includeUnavailable: false, dept: '69' },
      { limit: 1, includeUnavailable: false, dept: '69', sort: 'price' },
      { limit: 2, includeUnavailable: false, city: 'lyon', sort: 'price' },
    ];
    for (const query of queries) {
      const expected = referenceAll(snapshot, query, NOW).all;
      expect(walk(snapshot, query), JSON.stringify(query)).toEqual(expected);
    }
    expect(walk(snapshot, { limit: 1, includeUnavailable: false, dept: '69' })).toEqual([c.id, a.id, b.id]);
  });
});

describe('cursors', () => {
  it('tell apart searches whose texts differ only in where a NUL falls', () => {
    const c1 = centre(1);
    const sessions = ['2026-12-01', '2026-12-02', '2026-12-03'].map((d) => session(c1.id, d, '08:30', 22_900));
    const snapshot = CatalogueSnapshot.build(1, new Date(), [c1], sessions, urlBuilder('https://x.test'));
    const base = { limit: 1, includeUnavailable: false } as const;
    const first = searchStages(snapshot, { ...base, city: 'lyon', dept: '69', region: '\u0000rhone' }, NOW);
    expect(first.nextCursor).toBeDefined();
    expect(() =>
      searchStages(snapshot, { ...base, city: 'lyon\u000069', region: 'rhone', cursor: first.nextCursor }, NOW),
    ).toThrow(/belongs to another search/);
  });
});

describe('a record whose key is not exact', () => {
  it('makes its own catalogue compare sessions whole, still in order, and leaves every other catalogue its keys', () => {
    const c1 = centre(1);
    const good = ['2026-12-01', '2026-12-02', '2026-12-03'].map((d) => session(c1.id, d, '08:30', 22_900));
    // A time in no stored format: its key is NaN.
    const odd = { ...session(c1.id, '2026-12-02', '8:30', 22_900) };
    const urls = urlBuilder('https://x.test');
    const degraded = CatalogueSnapshot.build(1, new Date(), [c1], [...good, odd], urls);
    const sound = CatalogueSnapshot.build(1, new Date(), [c1], good, urls);
    const query: SearchQuery = { limit: 1, includeUnavailable: false, city: 'lyon' };
    expect(walk(degraded, query)).toEqual(referenceAll(degraded, query, NOW).all);
    expect(walk(sound, query)).toEqual(referenceAll(sound, query, NOW).all);
    expect(degraded.columns.keysExact).toBe(false);
    expect(sound.columns.keysExact).toBe(true);
    // Snapshots derived from one share its columns, so its verdict on the keys.
    const next = degraded.apply({ version: 2, updatedAt: new Date(), centres: new Map(), sessions: new Map() });
    expect(next.columns).toBe(degraded.columns);
  });
});
