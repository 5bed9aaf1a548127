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
  const changes = new Map<string, { removed: SessionEntry[]; added: SessionEntry[] }>();
  const slot = (k: string) => {
    let c = changes.get(k);
    if (!c) {
      c = { removed: [], added: [] };
      changes.set(k, c);
    }
    return c;
  };
  for (const r of removed) slot(key(r)).removed.push(r);
  for (const a of added) slot(key(a)).added.push(a);
  const out = new Map<string, readonly SessionEntry[] | undefined>();
  for (const [k, c] of changes) {
    const next = updateSorted(groups.get(k) ?? [], c.removed, c.added);
    out.set(k, next.length === 0 ? undefined : next);
  }
  return out;
}

/** A copy of grouped sorted lists with the changes applied; untouched groups are shared. */
export function updateGroups(
  groups: ReadonlyMap<string, readonly SessionEntry[]>,
  removed: readonly SessionEntry[],
  added: readonly SessionEntry[],
  key: (e: SessionEntry) => string,
): ReadonlyMap<string, readonly SessionEntry[]> {
  if (removed.length === 0 && added.length === 0) return groups;
  const out = new Map(groups);
  for (const [k, list] of groupChanges(groups, removed, added, key)) {
    if (list === undefined) out.delete(k);
    else out.set(k, list);
  }
  return out;
}
