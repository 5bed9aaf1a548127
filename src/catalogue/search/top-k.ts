import { type Columns, compareKeyed } from '../list-columns.js';
import type { SessionEntry } from '../read-model.js';
import type { PageKey } from './cursor.js';
import type { After } from './merge.js';
import type { WalkPlan } from './plan.js';
import type { Bounds, Matcher } from './walk.js';

/** A candidate of a page in another order than the date: its price or metres, then session order. */
interface Ranked {
  e: SessionEntry;
  key: number;
  primary: number;
}

/**
 * A page in price or distance order (then session order): the `limit` + 1 first past the cursor,
 * kept sorted as the lists are walked. With near, each list is one centre's, nearest first: its
 * sessions share one distance, so once the page is full a farther centre, or a later session of
 * the same one, cannot enter it.
 */
export function rankedPage(
  exact: boolean,
  plan: WalkPlan,
  { starts, ends }: Bounds,
  byPrice: boolean,
  cursor: { after: After; key: PageKey } | undefined,
  limit: number,
  matches: Matcher,
): SessionEntry[] {
  const { lists, columns, listMetres } = plan;
  const nearestFirst = !byPrice;
  const after = cursor?.after;
  const cursorPrimary = cursor ? (byPrice ? cursor.key.priceCents : cursor.key.metres) : 0;
  const top: Ranked[] = [];
  for (let k = 0; k < lists.length; k++) {
    const list = lists[k] as readonly SessionEntry[];
    const c = columns[k] as Columns;
    const m = listMetres?.[k] ?? 0;
    if (nearestFirst && top.length > limit && m > (top[limit] as Ranked).primary) break;
    for (let i = starts[k] as number, hi = ends[k] as number; i < hi; i++) {
      if (!matches(c, i)) continue;
      const primary = byPrice ? (c.price[i] as number) : m;
      const last = top[limit];
      // A dearer (or farther) session than the page's last is out without a closer look.
      if (last && primary > last.primary) {
        if (nearestFirst) break;
        continue;
      }
      const e = list[i] as SessionEntry;
      const key = c.key[i] as number;
      if (after && (primary - cursorPrimary || compareKeyed(exact, key, e.record, after.key, after.record)) <= 0)
        continue;
      if (last && (primary - last.primary || compareKeyed(exact, key, e.record, last.key, last.e.record)) >= 0) {
        if (nearestFirst) break;
        continue;
      }
      let lo = 0;
      let hi2 = top.length;
      while (lo < hi2) {
        const mid = (lo + hi2) >>> 1;
        const t = top[mid] as Ranked;
        if ((t.primary - primary || compareKeyed(exact, t.key, t.e.record, key, e.record)) < 0) lo = mid + 1;
        else hi2 = mid;
      }
      top.splice(lo, 0, { e, key, primary });
      if (top.length > limit + 1) top.pop();
    }
  }
  return top.map((x) => x.e);
}
