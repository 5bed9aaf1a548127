import { type Columns, compareKeyed, firstPast } from '../list-columns.js';
import type { SessionEntry, SessionRecord } from '../read-model.js';
import type { Lists } from './plan.js';
import { type Bounds, inRuns, type Matcher } from './walk.js';

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
  let firsts = starts;
  if (after) {
    const past = inRuns(walked, (k) =>
      firstPast(exact, lists[k] as readonly SessionEntry[], columns[k] as Columns, after.key, after.record),
    );
    firsts = past.map((p, k) => Math.max(p, starts[k] as number));
  }
  return firstInOrder(exact, walked, firsts, ends, need, matches);
}

/**
 * The first `need` sessions that `matches`, in session order, from `firsts` up to `ends` in each
 * list: a k-way merge of the runs over a binary heap of their next matches, keyed by their order
 * keys (a run skips its own non-matching sessions, list after list, before it goes back in the
 * heap). A single run is read in turn.
 */
function firstInOrder(
  exact: boolean,
  { lists, columns, runs }: Lists,
  firsts: Int32Array,
  ends: Int32Array,
  need: number,
  matches: Matcher,
): SessionEntry[] {
  const page: SessionEntry[] = [];
  const runCount = runs.length - 1;
  if (runCount === 1) {
    for (let k = 0; k < lists.length && page.length < need; k++) {
      const list = lists[k] as readonly SessionEntry[];
      const c = columns[k] as Columns;
      const hi = ends[k] as number;
      for (let i = firsts[k] as number; i < hi && page.length < need; i++)
        if (matches(c, i)) page.push(list[i] as SessionEntry);
    }
    return page;
  }
  const at = Int32Array.from(firsts);
  // Each run's current list.
  const current = runs.slice(0, runCount);
  /** Moves run r to its next match; false when it has none left. */
  const next = (r: number) => {
    const end = runs[r + 1] as number;
    for (let k = current[r] as number; k < end; k++) {
      const c = columns[k] as Columns;
      const hi = ends[k] as number;
      let i = at[k] as number;
      while (i < hi && !matches(c, i)) i++;
      at[k] = i;
      current[r] = k;
      if (i < hi) return true;
    }
    return false;
  };
  const head = (r: number) => {
    const k = current[r] as number;
    return (lists[k] as readonly SessionEntry[])[at[k] as number] as SessionEntry;
  };
  const take = (r: number) => {
    const k = current[r] as number;
    page.push((lists[k] as readonly SessionEntry[])[(at[k] as number)++] as SessionEntry);
  };
  // The heap holds run numbers; a run's current session is head(r).
  const heap: number[] = [];
  const less = (a: number, b: number) => {
    const ka = current[a] as number;
    const kb = current[b] as number;
    return (
      compareKeyed(
        exact,
        (columns[ka] as Columns).key[at[ka] as number] as number,
        head(a).record,
        (columns[kb] as Columns).key[at[kb] as number] as number,
        head(b).record,
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
  for (let r = 0; r < runCount; r++) if (next(r)) heap.push(r);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  while (heap.length > 0 && page.length < need) {
    const r = heap[0] as number;
    take(r);
    if (!next(r)) {
      const last = heap.pop() as number;
      if (heap.length > 0) heap[0] = last;
    }
    siftDown(0);
  }
  return page;
}
