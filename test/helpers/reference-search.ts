import { type CatalogueSnapshot, firstOnOrAfter, type SessionEntry } from '../../src/catalogue/read-model.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import { searchKey } from '../../src/catalogue/text.js';

/** The filters as first written: one walk over the date-sorted pool. The index must agree with it. */
export function referenceSearch(snapshot: CatalogueSnapshot, query: SearchQuery, today: string): string[] {
  const from = query.from && query.from > today ? query.from : today;
  const pool = query.dept ? (snapshot.sessionsByDept.get(query.dept) ?? []) : snapshot.sessions;
  const city = query.city ? searchKey(query.city) : undefined;
  const region = query.region ? searchKey(query.region) : undefined;
  const maxCents = query.maxPrice === undefined ? undefined : Math.floor(query.maxPrice * 100 + 1e-6);
  const ids: string[] = [];
  for (let i = firstOnOrAfter(pool, from); i < pool.length && ids.length < query.limit; i++) {
    const e = pool[i] as SessionEntry;
    if (query.to !== undefined && e.record.day1 > query.to) break;
    if (!query.includeUnavailable && e.record.spotsAvailable <= 0) continue;
    if (maxCents !== undefined && e.record.priceCents > maxCents) continue;
    if (city !== undefined && !e.centre.cityKey.includes(city)) continue;
    if (region !== undefined && !e.centre.regionKey.includes(region)) continue;
    ids.push(e.record.id);
  }
  return ids;
}
