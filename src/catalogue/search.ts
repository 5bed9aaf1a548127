import { createHash } from 'node:crypto';
import { DEPARTMENTS, departmentByCode } from './geography.js';
import {
  type CityMatcher,
  cityMatcher,
  distanceKm,
  matchesCity,
  type Origin,
  placeKey,
  resolveOrigin,
  SearchArgumentError,
} from './places.js';
import {
  type CatalogueSnapshot,
  compareSessions,
  firstOnOrAfter,
  type SessionEntry,
  type SessionRecord,
} from './read-model.js';
import { RADIUS_DEFAULT_KM, type SearchQuery } from './schemas.js';
import { searchKey } from './text.js';

export { SearchArgumentError } from './places.js';

/**
 * What an answer drew on, so that a cached answer can outlive changes elsewhere: some departments'
 * sessions (or all), and whether it matched centres by name or position (then any centre change may alter it).
 */
export interface SearchScope {
  depts: readonly string[] | 'all';
  centres: boolean;
}

export interface SearchResult {
  entries: SessionEntry[];
  /** With `near`: each entry's distance in km, rounded to one decimal, in the same order. */
  distances?: number[];
  /** How many sessions match, on all pages. */
  total: number;
  /** Where the next page starts; absent on the last page. */
  nextCursor?: string;
  scope: SearchScope;
  /** The first day actually searched from: `from`, or today when `from` is absent or past. */
  from: string;
  description: string;
}

/** A centre and its sessions (sorted like every session list), as candidates of a search. */
interface CentreSessions {
  readonly id: string;
  readonly sessions: readonly SessionEntry[];
  readonly cityKey: string;
  readonly regionKey: string;
  readonly deptCode: string;
  readonly postalCode: string;
  readonly lat: number;
  readonly lng: number;
}

// Per snapshot, built on first use: the snapshot is immutable, so is this.
const centreLists = new WeakMap<CatalogueSnapshot, readonly CentreSessions[]>();

function centresOf(snapshot: CatalogueSnapshot): readonly CentreSessions[] {
  let list = centreLists.get(snapshot);
  if (!list) {
    list = [...snapshot.centresById.values()].map((c) => ({
      id: c.view.id,
      sessions: snapshot.sessionsByCentre.get(c.view.id) ?? [],
      // "St-Étienne" as a centre's town matches "saint etienne" too.
      cityKey: placeKey(c.view.city),
      regionKey: c.regionKey,
      deptCode: c.view.deptCode,
      postalCode: c.view.postalCode,
      lat: c.view.lat,
      lng: c.view.lng,
    }));
    centreLists.set(snapshot, list);
  }
  return list;
}

// Each department's region, folded for matching; the same source as the centres' region keys.
const DEPARTMENT_REGION_KEYS: readonly (readonly [string, string])[] = DEPARTMENTS.map(
  (d) => [d.code, searchKey(d.region)] as const,
);

// Past this many candidate centres, walking the whole (date-sorted) pool is cheaper than merging
// that many lists.
const MAX_MERGED_CENTRES = 128;

/** Weekday (0 = Sunday) of a YYYY-MM-DD day; a few hundred distinct days, computed once each. */
const weekdays = new Map<string, number>();
function weekdayOf(day: string): number {
  let w = weekdays.get(day);
  if (w === undefined) {
    w = new Date(`${day}T12:00:00Z`).getUTCDay();
    if (weekdays.size > 5000) weekdays.clear();
    weekdays.set(day, w);
  }
  return w;
}

const DAY_NAMES_FR = ['dimanche', 'lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi'];

/** Where a page ends: the sort key of its last session. */
interface PageKey {
  day1: string;
  startTime: string;
  priceCents: number;
  id: string;
  /** Distance sort: metres from the place. */
  metres: number;
}

/** The filters of a search, minus limit and cursor: a cursor continues only the search it came from. */
function fingerprint(query: SearchQuery, origin: Origin | undefined, radius: number, sort: string): string {
  const filters = [
    query.city ?? '',
    query.dept ?? '',
    query.region ?? '',
    query.from ?? '',
    query.to ?? '',
    query.maxPrice ?? '',
    query.includeUnavailable,
    origin?.key ?? '',
    origin ? radius : '',
    query.days?.join('') ?? '',
    sort,
  ];
  return createHash('sha1').update(JSON.stringify(filters)).digest('base64url').slice(0, 12);
}

function encodeCursor(print: string, k: PageKey): string {
  return Buffer.from(JSON.stringify([1, print, k.day1, k.startTime, k.priceCents, k.id, k.metres])).toString(
    'base64url',
  );
}

function decodeCursor(cursor: string, print: string): PageKey {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parts = undefined;
  }
  const [v, p, day1, startTime, priceCents, id, metres] = Array.isArray(parts) ? parts : [];
  if (
    v !== 1 ||
    typeof p !== 'string' ||
    typeof day1 !== 'string' ||
    typeof startTime !== 'string' ||
    !Number.isSafeInteger(priceCents) ||
    typeof id !== 'string' ||
    !Number.isSafeInteger(metres)
  ) {
    throw new SearchArgumentError(
      'cursor',
      'not a cursor of this service (altered or cut short?): pass nextCursor exactly as received, or start again without cursor',
    );
  }
  if (p !== print) {
    throw new SearchArgumentError(
      'cursor',
      'this cursor belongs to another search: send it with the same filters as the page it came from (only limit may change), or start again without cursor',
    );
  }
  return { day1, startTime, priceCents: priceCents as number, id, metres: metres as number };
}

type Sort = NonNullable<SearchQuery['sort']>;

function comparator(sort: Sort): (a: SessionRecord, am: number, b: PageKey | SessionRecord, bm: number) => number {
  if (sort === 'price') return (a, _am, b) => a.priceCents - b.priceCents || compareSessions(a, b as SessionRecord);
  if (sort === 'distance') return (a, am, b, bm) => am - bm || compareSessions(a, b as SessionRecord);
  return (a, _am, b) => compareSessions(a, b as SessionRecord);
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
 */
export function searchStages(snapshot: CatalogueSnapshot, query: SearchQuery, today: string): SearchResult {
  const from = query.from && query.from > today ? query.from : today;
  const origin = query.near ? resolveOrigin(query.near) : undefined;
  if (!origin && query.radiusKm !== undefined) {
    throw new SearchArgumentError('radiusKm', 'needs near (the place to measure from), e.g. near=Villeurbanne');
  }
  const sort: Sort = query.sort ?? 'date';
  if (!origin && sort === 'distance') {
    throw new SearchArgumentError('sort', 'distance needs near (the place to measure from), e.g. near=Villeurbanne');
  }
  const radius = query.radiusKm ?? RADIUS_DEFAULT_KM;
  const print = fingerprint(query, origin, radius, sort);
  const after = query.cursor ? decodeCursor(query.cursor, print) : undefined;
  const city: CityMatcher | undefined = query.city ? cityMatcher(query.city) : undefined;
  const regionNeedle = query.region ? searchKey(query.region) : undefined;
  // Compare in cents: 229.99 € must admit a price of 22999 cents, whatever the float says.
  const maxCents = query.maxPrice === undefined ? undefined : Math.floor(query.maxPrice * 100 + 1e-6);
  const days = query.days ? new Set(query.days) : undefined;
  const keep = (r: SessionRecord) =>
    (query.includeUnavailable || r.spotsAvailable > 0) &&
    (maxCents === undefined || r.priceCents <= maxCents) &&
    (days === undefined || days.has(weekdayOf(r.day1)) || days.has(weekdayOf(r.day2)));

  // Which lists to walk, in session order.
  let lists: (readonly SessionEntry[])[];
  let allowed: Set<string> | undefined;
  let scope: SearchScope;
  const metresByCentre = origin ? new Map<string, number>() : undefined;
  if (regionNeedle !== undefined && city === undefined && query.dept === undefined && !origin) {
    // A region is a set of departments: merge their lists (at most 13) rather than its centres'.
    const depts = DEPARTMENT_REGION_KEYS.filter(([, key]) => key.includes(regionNeedle)).map(([code]) => code);
    lists = depts.map((code) => snapshot.sessionsByDept.get(code) ?? []);
    scope = { depts, centres: false };
  } else if (city !== undefined || regionNeedle !== undefined || origin) {
    const candidates = centresOf(snapshot).filter((c) => {
      if (query.dept !== undefined && c.deptCode !== query.dept) return false;
      if (city !== undefined && !matchesCity(city, c.cityKey, c.postalCode)) return false;
      if (regionNeedle !== undefined && !c.regionKey.includes(regionNeedle)) return false;
      if (origin && metresByCentre) {
        const km = distanceKm(origin.lat, origin.lng, c.lat, c.lng);
        if (km > radius) return false;
        metresByCentre.set(c.id, Math.round(km * 1000));
      }
      return true;
    });
    if (candidates.length <= MAX_MERGED_CENTRES) {
      lists = candidates.map((c) => c.sessions);
      scope = { depts: query.dept ? [query.dept] : [...new Set(candidates.map((c) => c.deptCode))], centres: true };
    } else {
      lists = [query.dept ? (snapshot.sessionsByDept.get(query.dept) ?? []) : snapshot.sessions];
      allowed = new Set(candidates.map((c) => c.id));
      scope = query.dept ? { depts: [query.dept], centres: true } : { depts: 'all', centres: false };
    }
  } else {
    lists = [query.dept ? (snapshot.sessionsByDept.get(query.dept) ?? []) : snapshot.sessions];
    scope = query.dept ? { depts: [query.dept], centres: false } : { depts: 'all', centres: false };
  }

  const metresOf = (e: SessionEntry) => metresByCentre?.get(e.record.centreId) ?? 0;
  const compare = comparator(sort);
  let total = 0;
  let page: SessionEntry[] = [];
  const visit = (e: SessionEntry) => {
    if (!keep(e.record)) return;
    if (allowed && !allowed.has(e.record.centreId)) return;
    total++;
    if (sort === 'date') {
      // Already in order: keep the first limit + 1 past the cursor (one more says a next page exists).
      if (page.length <= query.limit && (!after || compare(e.record, 0, after, 0) > 0)) page.push(e);
    } else {
      page.push(e);
    }
  };
  walkInOrder(lists, from, query.to, visit);
  if (sort !== 'date') {
    const withMetres = page.map((e) => ({ e, m: metresOf(e) }));
    const past = after ? withMetres.filter((x) => compare(x.e.record, x.m, after, after.metres) > 0) : withMetres;
    past.sort((a, b) => compare(a.e.record, a.m, b.e.record, b.m));
    page = past.slice(0, query.limit + 1).map((x) => x.e);
  }
  const more = page.length > query.limit;
  if (more) page.length = query.limit;
  const last = page[page.length - 1];
  const nextCursor =
    more && last
      ? encodeCursor(print, {
          day1: last.record.day1,
          startTime: last.record.startTime,
          priceCents: last.record.priceCents,
          id: last.record.id,
          metres: metresOf(last),
        })
      : undefined;
  const result: SearchResult = {
    entries: page,
    total,
    scope,
    from,
    description: describe(query, { from, count: page.length, total, origin, radius, city, sort, more }),
  };
  if (origin) result.distances = page.map((e) => Math.round(metresOf(e) / 100) / 10);
  if (nextCursor) result.nextCursor = nextCursor;
  return result;
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
 * Visits, in session order, the sessions of the lists from `from` to `to`: a k-way merge over a
 * binary heap of list cursors (one list is walked directly).
 */
function walkInOrder(
  lists: readonly (readonly SessionEntry[])[],
  from: string,
  to: string | undefined,
  visit: (e: SessionEntry) => void,
): void {
  if (lists.length === 1) {
    const list = lists[0] as readonly SessionEntry[];
    for (let i = firstOnOrAfter(list, from); i < list.length; i++) {
      const e = list[i] as SessionEntry;
      if (to !== undefined && e.record.day1 > to) break;
      visit(e);
    }
    return;
  }
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
  while (heap.length > 0) {
    const top = heap[0] as (typeof heap)[number];
    const e = top.list[top.at] as SessionEntry;
    if (to !== undefined && e.record.day1 > to) break; // the smallest is past `to`: so is every other
    visit(e);
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

interface Described {
  from: string;
  count: number;
  total: number;
  origin: Origin | undefined;
  radius: number;
  city: CityMatcher | undefined;
  sort: Sort;
  more: boolean;
}

function describe(query: SearchQuery, d: Described): string {
  const parts: string[] = [];
  parts.push(
    `${d.count} session${d.count === 1 ? '' : 's'} sur ${d.total} de stage de récupération de points (2 jours)` +
      (query.includeUnavailable ? ', complètes comprises' : ' avec des places disponibles'),
  );
  if (d.origin) parts.push(`à ${d.radius} km au plus de ${d.origin.label}`);
  if (query.dept) {
    const dept = departmentByCode(query.dept);
    parts.push(`dans le département ${query.dept}${dept ? ` (${dept.name})` : ''}`);
  }
  if (d.city) parts.push(`ville correspondant à « ${d.city.label} »`);
  if (query.region) parts.push(`région correspondant à « ${query.region} »`);
  parts.push(`à partir du ${frenchDate(d.from)}`);
  if (query.to) parts.push(`jusqu'au ${frenchDate(query.to)}`);
  if (query.maxPrice !== undefined) parts.push(`à ${query.maxPrice} € au plus`);
  if (query.days) parts.push(`ayant lieu un ${query.days.map((w) => DAY_NAMES_FR[w]).join(' ou un ')}`);
  const order =
    d.sort === 'price'
      ? 'triées par prix puis date'
      : d.sort === 'distance'
        ? 'triées par distance puis date'
        : 'triées par date, heure puis prix';
  const next = d.more ? ' Suite : la même recherche avec cursor=nextCursor.' : '';
  return `${parts.join(', ')}; au plus ${query.limit} par page, ${order}.${next} Réservation sur la page bookingUrl de chaque session.`;
}
