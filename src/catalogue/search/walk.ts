import { type Columns, firstAfterDay, firstOnOrAfterDay } from '../list-columns.js';
import type { SessionEntry } from '../read-model.js';
import type { SearchQuery } from '../schemas.js';
import type { WalkPlan } from './plan.js';

/** Whether session i of a list's columns passes every filter. */
export type Matcher = (c: Columns, i: number) => boolean;

/** Where the walk of each list starts (the first day searched) and ends (past `to`). */
export interface Bounds {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

export function boundsOf(exact: boolean, plan: WalkPlan, from: string, to: string | undefined): Bounds {
  const { lists, columns } = plan;
  const n = lists.length;
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const list = lists[k] as readonly SessionEntry[];
    const c = columns[k] as Columns;
    starts[k] = firstOnOrAfterDay(exact, list, c, from);
    ends[k] = to === undefined ? list.length : firstAfterDay(exact, list, c, to);
  }
  return { starts, ends };
}

/**
 * The session filters as one test over typed columns. `maxCents` in cents: 229.99 € must admit a
 * price of 22999 cents, whatever the float says.
 */
export function matcherOf(
  query: SearchQuery,
  maxCents: number | undefined,
  centreMask: Uint8Array | undefined,
): Matcher {
  const minSpots = query.includeUnavailable ? -0x80000000 : 1;
  const max = maxCents ?? 0x7fffffff;
  const mask = query.days ? query.days.reduce((m, w) => m | (1 << w), 0) : 0x7f;
  return (c, i) =>
    (c.spots[i] as number) >= minSpots &&
    (c.price[i] as number) <= max &&
    ((c.weekdays[i] as number) & mask) !== 0 &&
    (centreMask === undefined || centreMask[c.centre[i] as number] === 1);
}

/**
 * How many sessions match, on all pages. With no filter but places left, the count comes from
 * each list's running count of sessions with places: no walk at all. Otherwise one tight loop over
 * typed arrays per list.
 */
export function countMatches(
  plan: WalkPlan,
  { starts, ends }: Bounds,
  query: SearchQuery,
  maxCents: number | undefined,
  matches: Matcher,
): number {
  const { columns } = plan;
  const n = columns.length;
  let total = 0;
  if (plan.centreMask === undefined && maxCents === undefined && query.days === undefined) {
    for (let k = 0; k < n; k++) {
      const lo = starts[k] as number;
      const hi = ends[k] as number;
      if (hi > lo) total += query.includeUnavailable ? hi - lo : placesBetween(columns[k] as Columns, lo, hi);
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
