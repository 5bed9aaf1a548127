import { type Columns, compareKeyed, firstPast } from '../list-columns.js';
import type { SessionEntry, SessionRecord } from '../read-model.js';
import type { Lists } from './plan.js';
import type { Bounds, Matcher } from './walk.js';

/** The cursor's page key as the walk compares it: its order key and its fields. */
export interface After {
  readonly key: number;
  readonly record: SessionRecord;
}

/** A page in session order: the first `need` matches past the cursor, merged from every list. */
export function datePage(
  exact: boolean,
  walked: Lists,
  { starts, ends }: Bounds,
  after: After | undefined,
  need: number,
  matches: Matcher,
): SessionEntry[] {
  const { lists, columns } = walked;
  // Each list's part of the page starts past the cursor.
  const firsts = after
    ? starts.map((s, k) =>
        Math.max(
          s,
          firstPast(exact, lists[k] as readonly SessionEntry[], columns[k] as Columns, after.key, after.record),
        ),
      )
    : starts;
  return firstInOrder(exact, walked, firsts, ends, need, matches);
}

/**
 * The first `need` sessions that `matches`, in session order, from `firsts` up to `ends` in each
 * list: a k-way merge over a binary heap of the lists' next matches, keyed by their order keys
 * (a list skips its own non-matching sessions before it goes back in the heap). Sequential lists
 * are read in turn.
 */
function firstInOrder(
  exact: boolean,
  { lists, columns, sequential }: Lists,
  firsts: Int32Array,
  ends: Int32Array,
  need: number,
  matches: Matcher,
): SessionEntry[] {
  const page: SessionEntry[] = [];
  const at = Int32Array.from(firsts);
  const next = (k: number) => {
    const c = columns[k] as Columns;
    const hi = ends[k] as number;
    let i = at[k] as number;
    while (i < hi && !matches(c, i)) i++;
    at[k] = i;
    return i < hi;
  };
  if (lists.length === 1 || sequential) {
    for (let k = 0; k < lists.length && page.length < need; k++) {
      const list = lists[k] as readonly SessionEntry[];
      while (page.length < need && next(k)) page.push(list[(at[k] as number)++] as SessionEntry);
    }
    return page;
  }
  // The heap holds list numbers; a list's current session is at[k].
  const heap: number[] = [];
  const less = (a: number, b: number) => {
    const ia = at[a] as number;
    const ib = at[b] as number;
    return (
      compareKeyed(
        exact,
        (columns[a] as Columns).key[ia] as number,
        ((lists[a] as readonly SessionEntry[])[ia] as SessionEntry).record,
        (columns[b] as Columns).key[ib] as number,
        ((lists[b] as readonly SessionEntry[])[ib] as SessionEntry).record,
      ) < 0
    );
  };
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l] as number, heap[m] as number)) m = l;
      if (r < heap.length && less(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
      i = m;
    }
  };
  for (let k = 0; k < lists.length; k++) if (next(k)) heap.push(k);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  while (heap.length > 0 && page.length < need) {
    const k = heap[0] as number;
    page.push((lists[k] as readonly SessionEntry[])[(at[k] as number)++] as SessionEntry);
    if (!next(k)) {
      const last = heap.pop() as number;
      if (heap.length > 0) heap[0] = last;
    }
    siftDown(0);
  }
  return page;
}
