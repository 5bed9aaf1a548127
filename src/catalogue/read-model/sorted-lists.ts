import type { SessionEntry } from './entries.js';
import { byEntry, partitionPoint } from './session-order.js';

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Position where `entry` is, or would be inserted, in a list in session order. */
function lowerBound(list: readonly SessionEntry[], entry: SessionEntry): number {
  return partitionPoint(list, (e) => byEntry(e, entry) < 0);
}

// Up to this many changes, splicing into a copy (a memmove each) beats filtering and merging.
const SPLICE_MAX = 32;

/** A copy of a sorted list without `removed` and with `added`, still sorted. */
export function updateSorted(
  list: readonly SessionEntry[],
  removed: readonly SessionEntry[],
  added: readonly SessionEntry[],
): readonly SessionEntry[] {
  if (removed.length === 0 && added.length === 0) return list;
  if (removed.length + added.length <= SPLICE_MAX) {
    const out = list.slice();
    for (const r of removed) {
      const at = lowerBound(out, r);
      if (out[at] === r) out.splice(at, 1);
    }
    for (const a of added) out.splice(lowerBound(out, a), 0, a);
    return out;
  }
  const gone = new Set(removed);
  const kept = gone.size > 0 ? list.filter((e) => !gone.has(e)) : list;
  const incoming = [...added].sort(byEntry);
  const out: SessionEntry[] = new Array(kept.length + incoming.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < kept.length && j < incoming.length) {
    out[k++] =
      byEntry(kept[i] as SessionEntry, incoming[j] as SessionEntry) <= 0
        ? (kept[i++] as SessionEntry)
        : (incoming[j++] as SessionEntry);
  }
  while (i < kept.length) out[k++] = kept[i++] as SessionEntry;
  while (j < incoming.length) out[k++] = incoming[j++] as SessionEntry;
  return out;
}

/** Removed and added entries of one list (or chunk, or group of lists). */
export interface ListChange {
  readonly removed: SessionEntry[];
  readonly added: SessionEntry[];
}

/** The removed and added entries split by `key` (a list, a chunk): only keys with a change. */
export function splitChanges<K>(
  removed: readonly SessionEntry[],
  added: readonly SessionEntry[],
  key: (e: SessionEntry) => K,
): Map<K, ListChange> {
  const changes = new Map<K, ListChange>();
  const slot = (k: K) => {
    let c = changes.get(k);
    if (!c) {
      c = { removed: [], added: [] };
      changes.set(k, c);
    }
    return c;
  };
  for (const r of removed) slot(key(r)).removed.push(r);
  for (const a of added) slot(key(a)).added.push(a);
  return changes;
}

/**
 * The groups of sorted lists that the changes alter, each with its new list (undefined when it
 * ends empty): what to put in a copy of the groups, whose untouched lists are shared.
 */
export function groupChanges(
  groups: { get(key: string): readonly SessionEntry[] | undefined },
  removed: readonly SessionEntry[],
  added: readonly SessionEntry[],
  key: (e: SessionEntry) => string,
): Map<string, readonly SessionEntry[] | undefined> {
  const out = new Map<string, readonly SessionEntry[] | undefined>();
  for (const [k, c] of splitChanges(removed, added, key)) {
    const next = updateSorted(groups.get(k) ?? [], c.removed, c.added);
    out.set(k, next.length === 0 ? undefined : next);
  }
  return out;
}
