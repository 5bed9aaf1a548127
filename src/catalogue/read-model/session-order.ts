import type { SessionEntry, SessionRecord } from './entries.js';

/** Session order everywhere: day1, then startTime, then price, then id. */
export function compareSessions(a: SessionRecord, b: SessionRecord): number {
  if (a.day1 !== b.day1) return a.day1 < b.day1 ? -1 : 1;
  if (a.startTime !== b.startTime) return a.startTime < b.startTime ? -1 : 1;
  if (a.priceCents !== b.priceCents) return a.priceCents - b.priceCents;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export const byEntry = (a: SessionEntry, b: SessionEntry) => compareSessions(a.record, b.record);

/** Index of the first entry whose day1 is on or after `day` (entries are sorted by day1). */
export function firstOnOrAfter(entries: readonly SessionEntry[], day: string): number {
  return partitionPoint(entries, (e) => e.record.day1 < day);
}

/**
 * In a list ordered so that `isBefore` holds for a prefix of it, the length of that prefix (the
 * position of the first item for which it does not hold): a binary search.
 */
export function partitionPoint<T>(list: readonly T[], isBefore: (item: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBefore(list[mid] as T)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
