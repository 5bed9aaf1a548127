import { describe, expect, it } from 'vitest';
import { RecentKeys } from '../../src/http/recent-keys.js';

describe('RecentKeys', () => {
  it('says a key was asked before only from its second time on', () => {
    const recent = new RecentKeys(1024);
    expect(recent.seenBefore('dept=69')).toBe(false);
    expect(recent.seenBefore('dept=69')).toBe(true);
    expect(recent.seenBefore('dept=69')).toBe(true);
    expect(recent.seenBefore('dept=75')).toBe(false);
  });

  it('forgets keys once many others have been asked since (a flood of distinct queries admits almost none)', () => {
    const recent = new RecentKeys(2048);
    const keys = Array.from({ length: 6000 }, (_, i) => `city=town-${i}&limit=20`);
    for (const k of keys) recent.seenBefore(k);
    // A second pass over 6,000 distinct keys: each was overwritten, with few exceptions.
    const admitted = keys.filter((k) => recent.seenBefore(k)).length;
    expect(admitted).toBeLessThan(keys.length * 0.15);
    // Keys asked again soon are all recognised.
    const soon = keys.slice(0, 100);
    for (const k of soon) recent.seenBefore(k);
    expect(soon.every((k) => recent.seenBefore(k))).toBe(true);
  });
});
