import { addDays } from '../../core/clock.js';
import { type Columns, dayNumber, firstAfterDay, firstOnOrAfterDay } from '../list-columns.js';
import type { SessionEntry } from '../read-model.js';
import type { SearchQuery } from '../schemas.js';
import type { Lists, WalkPlan } from './plan.js';

/** Whether session i of a list's columns passes every filter. */
export type Matcher = (c: Columns, i: number) => boolean;

/**
 * Where the walk of each list starts (the first day searched) and ends (past `to`), and from where
 * no session of it can have begun (`unbegun`): before that, each session's start is checked.
 */
export interface Bounds {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly unbegun: Int32Array;
}

/**
 * `today` is Paris's date. Every French zone's date is at most Paris's + 1, so a session whose
 * first day is two days on has not begun anywhere: only the sessions of the first two or three
 * days walked, in each list, need their start compared with now.
 */
export function boundsOf(exact: boolean, plan: WalkPlan, from: string, to: string | undefined, today: string): Bounds {
  const { lists, columns } = plan;
  const sure = addDays(today, 2);
  // Each day read once, not once per list (the list of all is some 400 chunks at ten times the demo).
  const fromDay = dayNumber(from);
  const toDay = to === undefined ? Number.NaN : dayNumber(to);
  const sureDay = dayNumber(sure);
  if (plan.runs.length === lists.length + 1) {
    // As many runs as lists: each list bounded by itself (centres' lists, often hundreds), no closure.
    const n = lists.length;
    const starts = new Int32Array(n);
    const ends = new Int32Array(n);
    const unbegun = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      const list = lists[k] as readonly SessionEntry[];
      const c = columns[k] as Columns;
      starts[k] = firstOnOrAfterDay(exact, list, c, from, fromDay);
      ends[k] = to === undefined ? list.length : firstAfterDay(exact, list, c, to, toDay);
      unbegun[k] = sure > from ? firstOnOrAfterDay(exact, list, c, sure, sureDay) : (starts[k] as number);
    }
    return { starts, ends, unbegun };
  }
  const list = (k: number) => lists[k] as readonly SessionEntry[];
  const starts = inRuns(plan, (k) => firstOnOrAfterDay(exact, list(k), columns[k] as Columns, from, fromDay));
  const ends =
    to === undefined
      ? lengths(lists)
      : inRuns(plan, (k) => firstAfterDay(exact, list(k), columns[k] as Columns, to, toDay));
  const unbegun =
    sure > from ? inRuns(plan, (k) => firstOnOrAfterDay(exact, list(k), columns[k] as Columns, sure, sureDay)) : starts;
  return { starts, ends, unbegun };
}

function lengths(lists: readonly (readonly SessionEntry[])[]): Int32Array {
  const out = new Int32Array(lists.length);
  for (let k = 0; k < lists.length; k++) out[k] = (lists[k] as readonly SessionEntry[]).length;
  return out;
}

/**
 * A position in each list of the plan, where `at(k)` finds it in list k: the first of the list's
 * sessions past some point of session order (a day, a cursor). In a run, the lists before the one
 * where that point falls are wholly before it (their length) and those after wholly past it (0):
 * a binary search over each run's lists, not one search per list. A run's lists are never empty
 * (SessionChunks keeps no empty chunk): an empty one would read as wholly before the point.
 */
export function inRuns({ lists, runs }: Lists, at: (k: number) => number): Int32Array {
  const out = new Int32Array(lists.length);
  const length = (k: number) => (lists[k] as readonly SessionEntry[]).length;
  for (let r = 0; r + 1 < runs.length; r++) {
    const first = runs[r] as number;
    const end = runs[r + 1] as number;
    if (end - first === 1) {
      out[first] = at(first);
      continue;
    }
    // The first list the point falls in (end when none), and its position there.
    let lo = first;
    let hi = end;
    let atHi = 0;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const p = at(mid);
      if (p === length(mid)) lo = mid + 1;
      else {
        hi = mid;
        atHi = p;
      }
    }
    for (let k = first; k < lo; k++) out[k] = length(k);
    if (lo < end) out[lo] = atHi;
  }
  return out;
}

/**
 * The session filters as one test over typed columns, a session begun by `now` (whole minutes,
 * nowMinute) included. `maxCents` in cents: 229.99 € must admit a price of 22999 cents, whatever
 * the float says.
 */
export function matcherOf(
  query: SearchQuery,
  maxCents: number | undefined,
  centreMask: Uint8Array | undefined,
  now: number,
): Matcher {
  const minSpots = query.includeUnavailable ? -0x80000000 : 1;
  const max = maxCents ?? 0x7fffffff;
  const mask = query.days ? query.days.reduce((m, w) => m | (1 << w), 0) : 0x7f;
  return (c, i) =>
    (c.start[i] as number) > now &&
    (c.spots[i] as number) >= minSpots &&
    (c.price[i] as number) <= max &&
    ((c.weekdays[i] as number) & mask) !== 0 &&
    (centreMask === undefined || centreMask[c.centre[i] as number] === 1);
}

/**
 * How many sessions match, on all pages. With no filter but places left, the count comes from
 * each list's running count of sessions with places, past the sessions that may have begun (which
 * are looked at one by one): no walk of the rest. Otherwise one tight loop over typed arrays per list.
 */
export function countMatches(
  plan: WalkPlan,
  { starts, ends, unbegun }: Bounds,
  query: SearchQuery,
  maxCents: number | undefined,
  matches: Matcher,
): number {
  const { columns } = plan;
  const n = columns.length;
  let total = 0;
  if (plan.centreMask === undefined && maxCents === undefined && query.days === undefined) {
    for (let k = 0; k < n; k++) {
      const c = columns[k] as Columns;
      const lo = starts[k] as number;
      const hi = ends[k] as number;
      const sure = Math.min(Math.max(unbegun[k] as number, lo), hi);
      for (let i = lo; i < sure; i++) if (matches(c, i)) total++;
      if (hi > sure) total += query.includeUnavailable ? hi - sure : placesBetween(c, sure, hi);
    }
  } else {
    for (let k = 0; k < n; k++) {
      const c = columns[k] as Columns;
      for (let i = starts[k] as number, hi = ends[k] as number; i < hi; i++) if (matches(c, i)) total++;
    }
  }
  return total;
}

/** How many sessions with places left between positions lo and hi of a list. */
function placesBetween(c: Columns, lo: number, hi: number): number {
  return (c.places[hi] as number) - (c.places[lo] as number);
}
