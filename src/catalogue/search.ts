import { departmentByCode } from './geography.js';
import { type CatalogueSnapshot, firstOnOrAfter, type SessionEntry } from './read-model.js';
import type { SearchQuery } from './schemas.js';
import { searchKey } from './text.js';

export interface SearchResult {
  entries: SessionEntry[];
  /** The first day actually searched from: `from`, or today when `from` is absent or past. */
  from: string;
  description: string;
}

/**
 * The one implementation of the session filters, used by REST and MCP alike. Walks the
 * sorted sessions (or one department's) from the first day onwards and stops at `limit`.
 */
export function searchStages(snapshot: CatalogueSnapshot, query: SearchQuery, today: string): SearchResult {
  const from = query.from && query.from > today ? query.from : today;
  const pool = query.dept ? (snapshot.sessionsByDept.get(query.dept) ?? []) : snapshot.sessions;
  const cityNeedle = query.city ? searchKey(query.city) : undefined;
  const regionNeedle = query.region ? searchKey(query.region) : undefined;
  // Compare in cents: 229.99 € must admit a price of 22999 cents, whatever the float says.
  const maxCents = query.maxPrice === undefined ? undefined : Math.floor(query.maxPrice * 100 + 1e-6);

  const entries: SessionEntry[] = [];
  for (let i = firstOnOrAfter(pool, from); i < pool.length && entries.length < query.limit; i++) {
    const e = pool[i] as SessionEntry;
    const r = e.record;
    if (query.to !== undefined && r.day1 > query.to) break;
    if (!query.includeUnavailable && r.spotsAvailable <= 0) continue;
    if (maxCents !== undefined && r.priceCents > maxCents) continue;
    if (cityNeedle !== undefined && !e.centre.cityKey.includes(cityNeedle)) continue;
    if (regionNeedle !== undefined && !e.centre.regionKey.includes(regionNeedle)) continue;
    entries.push(e);
  }
  return { entries, from, description: describe(query, from, entries.length) };
}

function frenchDate(day: string): string {
  const [y, m, d] = day.split('-');
  return `${d}/${m}/${y}`;
}

function describe(query: SearchQuery, from: string, count: number): string {
  const parts: string[] = [];
  parts.push(
    `${count} session${count === 1 ? '' : 's'} de stage de récupération de points (2 jours)` +
      (query.includeUnavailable ? ', complètes comprises' : ' avec des places disponibles'),
  );
  if (query.dept) {
    const dept = departmentByCode(query.dept);
    parts.push(`dans le département ${query.dept}${dept ? ` (${dept.name})` : ''}`);
  }
  if (query.city) parts.push(`ville correspondant à « ${query.city} »`);
  if (query.region) parts.push(`région correspondant à « ${query.region} »`);
  parts.push(`à partir du ${frenchDate(from)}`);
  if (query.to) parts.push(`jusqu'au ${frenchDate(query.to)}`);
  if (query.maxPrice !== undefined) parts.push(`à ${query.maxPrice} € au plus`);
  return `${parts.join(', ')}; au plus ${query.limit}, triées par date, heure puis prix. Réservation sur la page bookingUrl de chaque session.`;
}
