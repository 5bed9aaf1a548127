import { addDays } from '../../core/clock.js';
import { type Columns, dayNumber, firstAfterDay, firstOnOrAfterDay } from '../list-columns.js';
import type { SessionEntry } from '../read-model.js';
import type { SearchQuery } from '../schemas.js';
import type { WalkPlan } from './plan.js';

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
  const n = lists.length;
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  const unbegun = new Int32Array(n);
  const sure = addDays(today, 2);
  // Each day read once, not once per list (the list of all is some 200 chunks at ten times the demo).
  const fromDay = dayNumber(from);
  const toDay = to === undefined ? Number.NaN : dayNumber(to);
  const sureDay = dayNumber(sure);
  for (let k = 0; k < n; k++) {
    const list = lists[k] as readonly SessionEntry[];
    const c = columns[k] as Columns;
    starts[k] = firstOnOrAfterDay(exact, list, c, from, fromDay);
    ends[k] = to === undefined ? list.length : firstAfterDay(exact, list, c, to, toDay);
    unbegun[k] = sure > from ? firstOnOrAfterDay(exact, list, c, sure, sureDay) : (starts[k] as number);
  }
  return { starts, ends, unbegun };
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
