import { cityMatcher, distanceKm, locationKey, matchesCity, resolveOrigin } from '../../src/catalogue/locations.js';
import {
  type CatalogueSnapshot,
  compareSessions,
  firstOnOrAfter,
  type SessionEntry,
} from '../../src/catalogue/read-model.js';
import { RADIUS_DEFAULT_KM, type SearchQuery } from '../../src/catalogue/schemas.js';
import { hasBegun } from '../../src/catalogue/session-status.js';
import { searchKey } from '../../src/catalogue/text.js';
import { addDays, dateIn } from '../../src/core/clock.js';

const townKeys = new Map<string, string>();
function townKey(city: string): string {
  let key = townKeys.get(city);
  if (key === undefined) {
    key = locationKey(city);
    townKeys.set(city, key);
  }
  return key;
}

export interface ReferenceAnswer {
  /** Every match, in the query's order (all pages). */
  all: string[];
  /** Distances in km (one decimal) by session id, with near. */
  distances: Map<string, number>;
}

/**
 * The filters as first written: one walk over the date-sorted pool, then a plain sort. The
 * index must agree with it. The cursor is ignored: callers slice `all`.
 */
export function referenceAll(snapshot: CatalogueSnapshot, query: SearchQuery, now: Date): ReferenceAnswer {
  const today = dateIn(now);
  const from = query.from && query.from > today ? query.from : today;
  // Every French zone's date is at least Paris's - 1: from today, every session not begun.
  const walkFrom = from === today ? addDays(today, -1) : from;
  const pool = [...((query.dept ? snapshot.deptSessions(query.dept) : snapshot.sessions) ?? [])];
  const city = query.city ? cityMatcher(query.city) : undefined;
  const region = query.region ? searchKey(query.region) : undefined;
  const maxCents = query.maxPrice === undefined ? undefined : Math.floor(query.maxPrice * 100 + 1e-6);
  const origin = query.near ? resolveOrigin(query.near) : undefined;
  const radius = query.radiusKm ?? RADIUS_DEFAULT_KM;
  const found: { e: SessionEntry; m: number }[] = [];
  for (let i = firstOnOrAfter(pool, walkFrom); i < pool.length; i++) {
    const e = pool[i] as SessionEntry;
    if (query.to !== undefined && e.record.day1 > query.to) break;
    if (hasBegun(e, now.getTime())) continue;
    if (!query.includeUnavailable && e.record.spotsAvailable <= 0) continue;
    if (maxCents !== undefined && e.record.priceCents > maxCents) continue;
    if (city !== undefined && !matchesCity(city, townKey(e.centre.view.city), e.centre.view.postalCode)) continue;
    if (region !== undefined && !e.centre.regionKey.includes(region)) continue;
    const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
    if (query.days && !query.days.some((w) => w === weekday(e.record.day1) || w === weekday(e.record.day2))) continue;
    let m = 0;
    if (origin) {
      const km = distanceKm(origin.lat, origin.lng, e.centre.view.lat, e.centre.view.lng);
      if (km > radius) continue;
      m = Math.round(km * 1000);
    }
    found.push({ e, m });
  }
  const sort = query.sort ?? 'date';
  found.sort((a, b) =>
    sort === 'price'
      ? a.e.record.priceCents - b.e.record.priceCents || compareSessions(a.e.record, b.e.record)
      : sort === 'distance'
        ? a.m - b.m || compareSessions(a.e.record, b.e.record)
        : compareSessions(a.e.record, b.e.record),
  );
  return {
    all: found.map((f) => f.e.record.id),
    distances: new Map(found.map((f) => [f.e.record.id, Math.round(f.m / 100) / 10])),
  };
}

/** The first page's ids. */
export function referenceSearch(snapshot: CatalogueSnapshot, query: SearchQuery, now: Date): string[] {
  return referenceAll(snapshot, query, now).all.slice(0, query.limit);
}
