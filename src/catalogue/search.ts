import { addDays, dateIn } from '../core/clock.js';
import { nowMinute, orderKey } from './list-columns.js';
import { type CityMatcher, type Origin, SearchArgumentError } from './locations.js';
import type { CatalogueSnapshot, SessionEntry, SessionRecord } from './read-model.js';
import { RADIUS_DEFAULT_KM, type SearchQuery } from './schemas.js';
import type { LocationFilters } from './search/centres.js';
import { decodeCursor, encodeCursor, type PageKey, SearchFilters } from './search/cursor.js';
import { describe } from './search/describe.js';
import { type After, datePage } from './search/merge.js';
import { planWithoutCentres, type Sort, type WalkPlan } from './search/plan.js';
import type { SearchScope } from './search/scope.js';
import { searchCacheOf } from './search/snapshot-cache.js';
import { rankedPage } from './search/top-k.js';
import { boundsOf, countMatches, matcherOf } from './search/walk.js';

export { SearchArgumentError } from './locations.js';
export { type SearchScope, stillValid } from './search/scope.js';

export interface SearchResult {
  entries: SessionEntry[];
  /** With `near`: each entry's distance in km, rounded to one decimal, in the same order. */
  distances?: number[];
  /** How many sessions match, on all pages. */
  total: number;
  /** Where the next page starts; absent on the last page. */
  nextCursor?: string;
  scope: SearchScope;
  /** The first day actually searched from: `from`, or today (in Paris) when `from` is absent or past. */
  from: string;
  description: string;
}

/**
 * The one implementation of the session filters, used by REST and MCP alike.
 *
 * A town, region or place first picks the centres that match (about 1,400 names or positions to
 * compare, not every session), then walks their session lists merged in session order from the
 * first day, so a search for a small town costs what its few centres hold rather than a scan of
 * the catalogue. A department alone walks that department's list; no place filter walks every
 * session. Every match is counted (`total`); a page is the `limit` first matches after the
 * cursor's sort key. Throws a SearchArgumentError for arguments that cannot be used.
 *
 * The steps live in search/: which lists to walk (plan.ts, centres.ts), the walk and the count
 * (walk.ts), the page in date order (merge.ts) or another (top-k.ts), the cursor (cursor.ts) and
 * the description (describe.ts).
 *
 * Only sessions not begun at `now` are found: a session leaves the lists at its first day's start
 * time in its centre's zone. `from` is a day in Paris; absent or past, every session not begun is found.
 */
export function searchStages(snapshot: CatalogueSnapshot, query: SearchQuery, now: Date): SearchResult {
  const today = dateIn(now);
  const from = query.from && query.from > today ? query.from : today;
  // From today, that is every session not begun: one in the Antilles or Guyane may begin when it is
  // already the next day in Paris, so the walk starts a day earlier and each start decides.
  const walkFrom = from === today ? addDays(today, -1) : from;
  const memo = snapshot.searchMemo;
  const origin = query.near ? memo.origin(query.near) : undefined;
  const sort = checkedSort(query, origin);
  const radius = query.radiusKm ?? RADIUS_DEFAULT_KM;
  const filters = new SearchFilters(query, origin, radius, sort);
  const afterKey = query.cursor ? decodeCursor(query.cursor, filters) : undefined;
  const city = query.city ? memo.cityMatcher(query.city) : undefined;
  const plan = planOf(snapshot, query, origin, radius, city, sort);
  // Compare in cents: 229.99 € must admit a price of 22999 cents, whatever the float says.
  const maxCents = query.maxPrice === undefined ? undefined : Math.floor(query.maxPrice * 100 + 1e-6);
  // Read once the plan's columns are built: building them is what may find a key inexact.
  const exact = snapshot.columns.keysExact;
  const bounds = boundsOf(exact, plan, walkFrom, query.to, today);
  const matches = matcherOf(query, maxCents, plan.centreMask, nowMinute(now.getTime()));
  const total = countMatches(plan, bounds, query, maxCents, matches);
  const after: After | undefined = afterKey && {
    key: orderKey(afterKey.day1, afterKey.startTime, afterKey.priceCents),
    record: afterKey as unknown as SessionRecord,
  };
  const page =
    sort === 'date'
      ? datePage(exact, plan, bounds, after, query.limit + 1, matches)
      : rankedPage(
          exact,
          plan,
          bounds,
          sort === 'price',
          after && { after, key: afterKey as PageKey },
          query.limit,
          matches,
        );
  const more = page.length > query.limit;
  if (more) page.length = query.limit;
  const metresOf = (e: SessionEntry) => plan.metresByCentre?.get(e.record.centreId) ?? 0;
  const result: SearchResult = {
    entries: page,
    total,
    scope: { depts: plan.depts, centres: plan.byCentres },
    from,
    description: describe(query, { from, count: page.length, total, origin, radius, city, sort, more }),
  };
  if (origin) result.distances = page.map((e) => Math.round(metresOf(e) / 100) / 10);
  const last = page[page.length - 1];
  if (more && last) {
    const { day1, startTime, priceCents, id } = last.record;
    result.nextCursor = encodeCursor(filters.print, { day1, startTime, priceCents, id, metres: metresOf(last) });
  }
  return result;
}

/** The order asked for, once the arguments that need `near` are known to have it. */
function checkedSort(query: SearchQuery, origin: Origin | undefined): Sort {
  if (!origin && query.radiusKm !== undefined) {
    throw new SearchArgumentError('radiusKm', 'needs near (the place to measure from), e.g. near=Villeurbanne');
  }
  const sort: Sort = query.sort ?? 'date';
  if (!origin && sort === 'distance') {
    throw new SearchArgumentError('sort', 'distance needs near (the place to measure from), e.g. near=Villeurbanne');
  }
  return sort;
}

/** Which lists the search walks: its place filters' centres (remembered by the snapshot), or departments'. */
function planOf(
  snapshot: CatalogueSnapshot,
  query: SearchQuery,
  origin: Origin | undefined,
  radius: number,
  city: CityMatcher | undefined,
  sort: Sort,
): WalkPlan {
  const regionNeedle = query.region ? snapshot.searchMemo.searchKey(query.region) : undefined;
  if (regionNeedle !== undefined && city === undefined && query.dept === undefined && !origin) {
    return planWithoutCentres(snapshot, undefined, snapshot.searchMemo.regionDepartments(regionNeedle));
  }
  if (city !== undefined || regionNeedle !== undefined || origin) {
    const location: LocationFilters = {
      dept: query.dept,
      city: city && query.city !== undefined ? { matcher: city, text: query.city } : undefined,
      regionNeedle,
      origin,
      radius,
    };
    return searchCacheOf(snapshot).plan(location, sort);
  }
  return planWithoutCentres(snapshot, query.dept, undefined);
}
