import { DEPARTMENTS, departmentByCode } from './geography.js';
import { type CatalogueSnapshot, compareSessions, firstOnOrAfter, type SessionEntry } from './read-model.js';
import type { SearchQuery } from './schemas.js';
import { searchKey } from './text.js';

/**
 * What an answer drew on, so that a cached answer can outlive changes elsewhere: some departments'
 * sessions (or all), and whether it matched centres by name (then any centre change may alter it).
 */
export interface SearchScope {
  depts: readonly string[] | 'all';
  centres: boolean;
}

export interface SearchResult {
  entries: SessionEntry[];
  scope: SearchScope;
  /** The first day actually searched from: `from`, or today when `from` is absent or past. */
  from: string;
  description: string;
}

/** A centre and its sessions (sorted like every session list), as candidates of a search. */
interface CentreSessions {
  readonly sessions: readonly SessionEntry[];
  readonly cityKey: string;
  readonly regionKey: string;
  readonly deptCode: string;
}

// Per snapshot, built on first use: the snapshot is immutable, so is this.
const centreLists = new WeakMap<CatalogueSnapshot, readonly CentreSessions[]>();

function centresOf(snapshot: CatalogueSnapshot): readonly CentreSessions[] {
  let list = centreLists.get(snapshot);
  if (!list) {
    list = [...snapshot.centresById.values()].map((c) => ({
      sessions: snapshot.sessionsByCentre.get(c.view.id) ?? [],
      cityKey: c.cityKey,
      regionKey: c.regionKey,
      deptCode: c.view.deptCode,
    }));
    centreLists.set(snapshot, list);
  }
  return list;
}

// Each department's region, folded for matching; the same source as the centres' region keys.
const DEPARTMENT_REGION_KEYS: readonly (readonly [string, string])[] = DEPARTMENTS.map(
  (d) => [d.code, searchKey(d.region)] as const,
);

// Past this many candidate centres, walking the whole (date-sorted) pool finds `limit` matches
// sooner than merging that many lists.
const MAX_MERGED_CENTRES = 128;

/**
 * The one implementation of the session filters, used by REST and MCP alike.
 *
 * A town or region first picks the centres that match (about 1,400 names to compare, not every
 * session), then walks their session lists merged in session order from the first day, so a
 * search for a small town costs what its few centres hold rather than a scan of the catalogue.
 * A department alone walks that department's list; no place filter walks every session.
 */
export function searchStages(snapshot: CatalogueSnapshot, query: SearchQuery, today: string): SearchResult {
  const from = query.from && query.from > today ? query.from : today;
  const cityNeedle = query.city ? searchKey(query.city) : undefined;
  const regionNeedle = query.region ? searchKey(query.region) : undefined;
  // Compare in cents: 229.99 € must admit a price of 22999 cents, whatever the float says.
  const maxCents = query.maxPrice === undefined ? undefined : Math.floor(query.maxPrice * 100 + 1e-6);
  const keep = (r: SessionEntry['record']) =>
    (query.includeUnavailable || r.spotsAvailable > 0) && (maxCents === undefined || r.priceCents <= maxCents);

  const entries: SessionEntry[] = [];
  if (regionNeedle !== undefined && cityNeedle === undefined && query.dept === undefined) {
    // A region is a set of departments: merge their lists (at most 13) rather than its centres'.
    const depts = DEPARTMENT_REGION_KEYS.filter(([, key]) => key.includes(regionNeedle)).map(([code]) => code);
    mergeInOrder(
      depts.map((code) => snapshot.sessionsByDept.get(code) ?? []),
      from,
      query.to,
      query.limit,
      keep,
      entries,
    );
    return { entries, from, description: describe(query, from, entries.length), scope: { depts, centres: false } };
  }
  const candidates =
    cityNeedle !== undefined || regionNeedle !== undefined
      ? centresOf(snapshot).filter(
          (c) =>
            (query.dept === undefined || c.deptCode === query.dept) &&
            (cityNeedle === undefined || c.cityKey.includes(cityNeedle)) &&
            (regionNeedle === undefined || c.regionKey.includes(regionNeedle)),
        )
      : undefined;

  if (candidates !== undefined && candidates.length <= MAX_MERGED_CENTRES) {
    mergeInOrder(
      candidates.map((c) => c.sessions),
      from,
      query.to,
      query.limit,
      keep,
      entries,
    );
  } else {
    const pool = query.dept ? (snapshot.sessionsByDept.get(query.dept) ?? []) : snapshot.sessions;
    const allowed = candidates ? new Set(candidates.map((c) => c.sessions)) : undefined;
    for (let i = firstOnOrAfter(pool, from); i < pool.length && entries.length < query.limit; i++) {
      const e = pool[i] as SessionEntry;
      if (query.to !== undefined && e.record.day1 > query.to) break;
      if (!keep(e.record)) continue;
      if (allowed && !allowed.has(snapshot.sessionsByCentre.get(e.record.centreId) ?? [])) continue;
      entries.push(e);
    }
  }
  const scope: SearchScope = query.dept
    ? { depts: [query.dept], centres: false }
    : candidates !== undefined && candidates.length <= MAX_MERGED_CENTRES
      ? { depts: [...new Set(candidates.map((c) => c.deptCode))], centres: true }
      : { depts: 'all', centres: false };
  return { entries, from, description: describe(query, from, entries.length), scope };
}

/** Whether an answer computed at `version` with `scope` still holds in `snapshot`. */
export function stillValid(snapshot: CatalogueSnapshot, version: number, scope: SearchScope): boolean {
  if (snapshot.version === version) return true;
  if (scope.depts === 'all' || snapshot.baseVersion > version) return false;
  if (scope.centres && snapshot.centresVersion > version) return false;
  for (const code of scope.depts) if (snapshot.deptVersion(code) > version) return false;
  return true;
}

/**
 * Appends to `out`, in session order, up to `limit` kept sessions from the lists, starting at
 * `from`: a k-way merge over a binary heap of list cursors.
 */
function mergeInOrder(
  lists: readonly (readonly SessionEntry[])[],
  from: string,
  to: string | undefined,
  limit: number,
  keep: (r: SessionEntry['record']) => boolean,
  out: SessionEntry[],
): void {
  const heap: { list: readonly SessionEntry[]; at: number }[] = [];
  const less = (a: (typeof heap)[number], b: (typeof heap)[number]) =>
    compareSessions((a.list[a.at] as SessionEntry).record, (b.list[b.at] as SessionEntry).record) < 0;
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l] as (typeof heap)[number], heap[m] as (typeof heap)[number])) m = l;
      if (r < heap.length && less(heap[r] as (typeof heap)[number], heap[m] as (typeof heap)[number])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as (typeof heap)[number], heap[i] as (typeof heap)[number]];
      i = m;
    }
  };
  for (const list of lists) {
    const at = firstOnOrAfter(list, from);
    if (at < list.length) heap.push({ list, at });
  }
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  while (heap.length > 0 && out.length < limit) {
    const top = heap[0] as (typeof heap)[number];
    const e = top.list[top.at] as SessionEntry;
    if (to !== undefined && e.record.day1 > to) break; // the smallest is past `to`: so is every other
    if (keep(e.record)) out.push(e);
    top.at++;
    if (top.at >= top.list.length) {
      const last = heap.pop() as (typeof heap)[number];
      if (heap.length > 0) heap[0] = last;
    }
    siftDown(0);
  }
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
