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
    expect(asked.filter((k) => recent.seenBefore(k))).toEqual([]);
    for (let round = 0; round < 3; round++) expect(asked.filter((k) => !recent.seenBefore(k))).toEqual([]);
  });

  it('recognises a key after exactly half its slots of others, the last of its generation', () => {
    const recent = new RecentKeys(2048);
    for (const k of keys(1023, 'before')) recent.seenBefore(k);
    recent.seenBefore('dept=69'); // the 1,024th of its generation
    for (const k of keys(1024, 'after')) recent.seenBefore(k);
    expect(recent.seenBefore('dept=69')).toBe(true);
  });

  it('keeps a key asked again and again however many others come between its requests', () => {
    const recent = new RecentKeys(256);
    recent.seenBefore('dept=75');
    for (const batch of [0, 1, 2, 3, 4, 5]) {
      for (const k of keys(100, `batch-${batch}`)) recent.seenBefore(k);
      expect(recent.seenBefore('dept=75')).toBe(true);
    }
  });

  it('forgets keys once many others have been asked since (a flood of distinct queries admits none)', () => {
    const recent = new RecentKeys(2048);
    const flood = keys(6000);
    for (let pass = 0; pass < 3; pass++) expect(flood.filter((k) => recent.seenBefore(k))).toEqual([]);
    // A key is forgotten once as many others as its slots have come after it, however it fell.
    for (const first of [0, 500, 1023]) {
      const fresh = new RecentKeys(2048);
      for (const k of keys(first, 'before')) fresh.seenBefore(k);
      fresh.seenBefore('dept=69');
      for (const k of keys(2048, 'after')) fresh.seenBefore(k);
      expect(fresh.seenBefore('dept=69'), `after ${first} keys`).toBe(false);
    }
  });
});
