import { describe, expect, it } from 'vitest';
import { RecentKeys } from '../../src/http/recent-keys.js';

const keys = (n: number, prefix = 'city=town') => Array.from({ length: n }, (_, i) => `${prefix}-${i}&limit=20`);

describe('RecentKeys', () => {
  it('says a key was asked before only from its second time on', () => {
    const recent = new RecentKeys(1024);
    expect(recent.seenBefore('dept=69')).toBe(false);
    expect(recent.seenBefore('dept=69')).toBe(true);
    expect(recent.seenBefore('dept=69')).toBe(true);
    expect(recent.seenBefore('dept=75')).toBe(false);
  });

  it('recognises every key asked again within half its slots, however the keys hash', () => {
    // 1,000 keys asked in turn, then again: a table of one hash a slot (2,048 of them) lost about a
    // fifth, two keys meeting in a slot pushing each other out on every turn.
    const recent = new RecentKeys(2048);
    const asked = keys(1000);
    // The filter's false hits aside: it may take a key never asked for one asked, rarely.
    expect(asked.filter((k) => recent.seenBefore(k)).length).toBeLessThan(10);
    for (let round = 0; round < 3; round++) expect(asked.filter((k) => !recent.seenBefore(k))).toEqual([]);
  });

  it('keeps a key asked again and again however many others come between its requests', () => {
    const recent = new RecentKeys(256);
    recent.seenBefore('dept=75');
    for (const batch of [0, 1, 2, 3, 4, 5]) {
      for (const k of keys(100, `batch-${batch}`)) recent.seenBefore(k);
      expect(recent.seenBefore('dept=75')).toBe(true);
    }
  });

  it('forgets keys once many others have been asked since (a flood of distinct queries admits almost none)', () => {
    const recent = new RecentKeys(2048);
    const flood = keys(6000);
    for (const k of flood) recent.seenBefore(k);
    // A second pass over 6,000 distinct keys: each was forgotten, but for the filter's rare false hits.
    const admitted = flood.filter((k) => recent.seenBefore(k)).length;
    expect(admitted).toBeLessThan(flood.length * 0.02);
    // A key is forgotten once as many others as its slots have come after it.
    recent.seenBefore('dept=69');
    for (const k of keys(2048, 'after')) recent.seenBefore(k);
    expect(recent.seenBefore('dept=69')).toBe(false);
  });
});
