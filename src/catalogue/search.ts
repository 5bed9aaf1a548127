import { hash } from 'node:crypto';
import { DEPARTMENTS, departmentByCode } from './geography.js';
import {
  type Columns,
  centreIndex,
  columnsOf,
  compareKeyed,
  firstAfterDay,
  firstOnOrAfterDay,
  firstPast,
  orderKey,
} from './list-columns.js';
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
import type { CatalogueSnapshot, SessionEntry, SessionRecord } from './read-model.js';
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

/**
 * A pure function of a search text, remembered for the last few thousand distinct texts: the same
 * towns, places and regions come back in queries that differ in dates or prices. What it returns
 * is shared between searches and never altered. Errors (an unknown place) are not remembered.
 */
function remembered<T>(of: (text: string) => T): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    let value = known.get(text);
    if (value === undefined) {
      value = of(text);
      if (known.size >= 4096) known.clear();
      known.set(text, value);
    }
    return value;
  };
}

const cityMatcherOf = remembered(cityMatcher);
const originOf = remembered((text) => resolveOrigin(text));
const searchKeyOf = remembered(searchKey);
// The departments of the regions a folded needle matches.
const regionDepartments = remembered((needle) =>
  DEPARTMENT_REGION_KEYS.filter(([, key]) => key.includes(needle)).map(([code]) => code),
);

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
function filtersOf(query: SearchQuery, origin: Origin | undefined, radius: number, sort: string): unknown[] {
  return [
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
}

/**
 * A cursor's fingerprint of the filters: a 64-bit hash of their JSON (an FNV-1a lane and a second
 * lane with an extra shift), in hex. It only tells searches apart — a clash would continue another
 * search's order, nothing more — so it needs no cryptographic hash: SHA-1 cost a microsecond a page.
 */
function fingerprint(filters: readonly unknown[]): string {
  const text = JSON.stringify(filters);
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** Version 1 cursors (until November 2026) carried a SHA-1 print: still read, so that paging survives an upgrade. */
function fingerprintV1(filters: readonly unknown[]): string {
  return hash('sha1', JSON.stringify(filters), 'base64url').slice(0, 12);
}

// 2.<print>.<day1>.<startTime>.<cents>.<id>.<metres>: none of the stored texts holds a dot.
const CURSOR_V2 = /^2\.([0-9a-f]{16})\.([^.]{1,40})\.([^.]{1,40})\.(-?\d{1,15})\.([^.]{1,100})\.(-?\d{1,15})$/;

function encodeCursor(print: string, k: PageKey): string {
  return Buffer.from(`2.${print}.${k.day1}.${k.startTime}.${k.priceCents}.${k.id}.${k.metres}`, 'latin1').toString(
    'base64url',
  );
}

/** A cursor's page key, when the cursor belongs to the search whose filters are `filters`. */
function decodeCursor(cursor: string, filters: readonly unknown[], print: () => string): PageKey {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  let key: (PageKey & { print: string }) | undefined;
  let expected: () => string = print;
  const v2 = CURSOR_V2.exec(text);
  if (v2) {
    const [, p, day1, startTime, priceCents, id, metres] = v2 as unknown as string[];
    key = {
      print: p as string,
      day1: day1 as string,
      startTime: startTime as string,
      priceCents: Number(priceCents),
      id: id as string,
      metres: Number(metres),
    };
  } else {
    key = decodeCursorV1(text);
    expected = () => fingerprintV1(filters);
  }
  if (!key) {
    throw new SearchArgumentError(
      'cursor',
      'not a cursor of this service (altered or cut short?): pass nextCursor exactly as received, or start again without cursor',
    );
  }
  if (key.print !== expected()) {
    throw new SearchArgumentError(
      'cursor',
      'this cursor belongs to another search: send it with the same filters as the page it came from (only limit may change), or start again without cursor',
    );
  }
  return { day1: key.day1, startTime: key.startTime, priceCents: key.priceCents, id: key.id, metres: key.metres };
}

function decodeCursorV1(text: string): (PageKey & { print: string }) | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(text);
  } catch {
    return undefined;
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
  )
    return undefined;
  return { print: p, day1, startTime, priceCents: priceCents as number, id, metres: metres as number };
}

type Sort = NonNullable<SearchQuery['sort']>;

interface PickedCentres {
  centres: readonly CentreSessions[];
  /** Their departments. */
  depts: readonly string[];
  metres: ReadonlyMap<string, number>;
  /** Many centres: their departments' lists, walked keeping only theirs (see departmentWalk). */
  walk?: DepartmentWalk | null;
  /** The centres' lists, as picked, and nearest first (with near): made on first use. */
  own?: CentreLists;
  nearestFirst?: CentreLists;
}

/** Lists of sessions to walk, with their columns (looked up once per pick, not per search). */
interface Lists {
  lists: readonly (readonly SessionEntry[])[];
  columns: readonly Columns[];
}

/** The lists of some centres, with each one's distance in metres (0 without near). */
interface CentreLists extends Lists {
  metres: readonly number[];
}

function listsOfCentres(centres: readonly CentreSessions[], metres: ReadonlyMap<string, number>): CentreLists {
  const lists = centres.map((c) => c.sessions);
  return { lists, columns: lists.map(columnsOf), metres: centres.map((c) => metres.get(c.id) ?? 0) };
}

interface DepartmentWalk extends Lists {
  /** By centre index (centreIndex): 1 for the picked centres. */
  mask: Uint8Array;
}

// Past this many centres, merging their lists one by one costs more than walking their
// departments' lists (already in order) and skipping the other centres' sessions…
const WALK_DEPARTMENTS_FROM = 16;
// …as long as those departments do not hold many more sessions than the centres themselves.
const DEPARTMENT_SESSIONS_PER_PICKED = 6;

/**
 * For a date-ordered search over many centres (a wide radius, a common name): their departments'
 * lists and a mask of the centres, or null when merging the centres' own lists is cheaper.
 */
function departmentWalk(snapshot: CatalogueSnapshot, picked: PickedCentres): DepartmentWalk | null {
  if (picked.walk !== undefined) return picked.walk;
  let walk: DepartmentWalk | null = null;
  if (picked.centres.length > WALK_DEPARTMENTS_FROM) {
    const lists = picked.depts.map((code) => snapshot.sessionsByDept.get(code) ?? []);
    const own = picked.centres.reduce((n, c) => n + c.sessions.length, 0);
    if (lists.reduce((n, l) => n + l.length, 0) <= DEPARTMENT_SESSIONS_PER_PICKED * own) {
      const indexes = picked.centres.map((c) => centreIndex(c.id));
      const mask = new Uint8Array(Math.max(...indexes) + 1);
      for (const i of indexes) mask[i] = 1;
      walk = { lists, columns: lists.map(columnsOf), mask };
    }
  }
  picked.walk = walk;
  return walk;
}

// Per snapshot, the centres each place filter picked: towns and places recur across queries that
// differ in dates, prices or days, and the snapshot (hence its centres) is immutable.
const pickedCentres = new WeakMap<CatalogueSnapshot, Map<string, PickedCentres>>();
const PICKED_MAX = 4096;

/** The centres matching the place filters, with their distance in metres from `origin`. */
function pickCentres(
  snapshot: CatalogueSnapshot,
  dept: string | undefined,
  /** The matcher, and the text it was made from (a matcher is a function of its text). */
  city: { matcher: CityMatcher; text: string } | undefined,
  regionNeedle: string | undefined,
  origin: Origin | undefined,
  radius: number,
): PickedCentres {
  let cache = pickedCentres.get(snapshot);
  if (!cache) {
    cache = new Map();
    pickedCentres.set(snapshot, cache);
  }
  // The town's text goes last: the parts before it cannot hold a NUL, so the key reads back one way only.
  const place = origin ? `${origin.lat},${origin.lng},${radius}` : '';
  const key = `${dept ?? ''}\u0000${regionNeedle ?? '\u0001'}\u0000${place}\u0000${city ? city.text : '\u0001'}`;
  const known = cache.get(key);
  if (known) return known;
  const metres = new Map<string, number>();
  const centres = centresOf(snapshot).filter((c) => {
    if (dept !== undefined && c.deptCode !== dept) return false;
    if (city !== undefined && !matchesCity(city.matcher, c.cityKey, c.postalCode)) return false;
    if (regionNeedle !== undefined && !c.regionKey.includes(regionNeedle)) return false;
    if (origin) {
      const km = distanceKm(origin.lat, origin.lng, c.lat, c.lng);
      if (km > radius) return false;
      metres.set(c.id, Math.round(km * 1000));
    }
    return true;
  });
  const picked: PickedCentres = { centres, depts: [...new Set(centres.map((c) => c.deptCode))], metres };
  if (cache.size >= PICKED_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, picked);
  return picked;
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
  const origin = query.near ? originOf(query.near) : undefined;
  if (!origin && query.radiusKm !== undefined) {
    throw new SearchArgumentError('radiusKm', 'needs near (the place to measure from), e.g. near=Villeurbanne');
  }
  const sort: Sort = query.sort ?? 'date';
  if (!origin && sort === 'distance') {
    throw new SearchArgumentError('sort', 'distance needs near (the place to measure from), e.g. near=Villeurbanne');
  }
  const radius = query.radiusKm ?? RADIUS_DEFAULT_KM;
  // Needed only to read a cursor or to write one.
  let filters: unknown[] | undefined;
  let print: string | undefined;
  const filtersNow = () => {
    filters ??= filtersOf(query, origin, radius, sort);
    return filters;
  };
  const printOf = () => {
    print ??= fingerprint(filtersNow());
    return print;
  };
  const after = query.cursor ? decodeCursor(query.cursor, filtersNow(), printOf) : undefined;
  const city: CityMatcher | undefined = query.city ? cityMatcherOf(query.city) : undefined;
  const regionNeedle = query.region ? searchKeyOf(query.region) : undefined;
  // Compare in cents: 229.99 € must admit a price of 22999 cents, whatever the float says.
  const maxCents = query.maxPrice === undefined ? undefined : Math.floor(query.maxPrice * 100 + 1e-6);

  // Which lists to walk, in session order.
  let walked: Lists;
  // With near, when each list is one centre's: each list's distance in metres.
  let listMetres: readonly number[] | undefined;
  let scope: SearchScope;
  let metresByCentre: ReadonlyMap<string, number> | undefined;
  // Set when the lists are departments' and only some centres' sessions count.
  let centreMask: Uint8Array | undefined;
  if (regionNeedle !== undefined && city === undefined && query.dept === undefined && !origin) {
    // A region is a set of departments: merge their lists (at most 13) rather than its centres'.
    const depts = regionDepartments(regionNeedle);
    const lists = depts.map((code) => snapshot.sessionsByDept.get(code) ?? []);
    walked = { lists, columns: lists.map(columnsOf) };
    scope = { depts, centres: false };
  } else if (city !== undefined || regionNeedle !== undefined || origin) {
    const picked = pickCentres(
      snapshot,
      query.dept,
      city && query.city !== undefined ? { matcher: city, text: query.city } : undefined,
      regionNeedle,
      origin,
      radius,
    );
    if (origin) metresByCentre = picked.metres;
    // Every match is counted: merging the candidates' lists beats walking the whole pool, however
    // many; in date order, many centres' departments' lists with a mask beat both.
    const walk = sort === 'date' ? departmentWalk(snapshot, picked) : null;
    if (walk) {
      walked = walk;
      centreMask = walk.mask;
    } else {
      // In distance order, nearest centres first: once a page is full, farther centres cannot enter it.
      let own: CentreLists;
      if (sort === 'distance') {
        picked.nearestFirst ??= listsOfCentres(
          [...picked.centres].sort((a, b) => (picked.metres.get(a.id) as number) - (picked.metres.get(b.id) as number)),
          picked.metres,
        );
        own = picked.nearestFirst;
      } else {
        picked.own ??= listsOfCentres(picked.centres, picked.metres);
        own = picked.own;
      }
      walked = own;
      listMetres = own.metres;
    }
    scope = { depts: query.dept ? [query.dept] : picked.depts, centres: true };
  } else {
    const lists = [query.dept ? (snapshot.sessionsByDept.get(query.dept) ?? []) : snapshot.sessions];
    walked = { lists, columns: lists.map(columnsOf) };
    scope = query.dept ? { depts: [query.dept], centres: false } : { depts: 'all', centres: false };
  }

  const metresOf = (e: SessionEntry) => metresByCentre?.get(e.record.centreId) ?? 0;
  const limit = query.limit;
  const { lists, columns } = walked;
  const n = lists.length;
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const list = lists[k] as readonly SessionEntry[];
    const c = columns[k] as Columns;
    starts[k] = firstOnOrAfterDay(list, c, from);
    ends[k] = query.to === undefined ? list.length : firstAfterDay(list, c, query.to);
  }
  const minSpots = query.includeUnavailable ? -0x80000000 : 1;
  const max = maxCents ?? 0x7fffffff;
  const mask = query.days ? query.days.reduce((m, w) => m | (1 << w), 0) : 0x7f;
  /** Whether session i of a list's columns passes every filter. */
  const matches = (c: Columns, i: number) =>
    (c.spots[i] as number) >= minSpots &&
    (c.price[i] as number) <= max &&
    ((c.weekdays[i] as number) & mask) !== 0 &&
    (centreMask === undefined || centreMask[c.centre[i] as number] === 1);

  // With no filter but places left, the count comes from each list's running count of sessions
  // with places: no walk at all. Otherwise one tight loop over typed arrays per list.
  let total = 0;
  if (centreMask === undefined && maxCents === undefined && query.days === undefined) {
    for (let k = 0; k < n; k++) {
      const lo = starts[k] as number;
      const hi = ends[k] as number;
      if (hi > lo) total += query.includeUnavailable ? hi - lo : placesBefore(columns[k] as Columns, lo, hi);
    }
  } else {
    for (let k = 0; k < n; k++) {
      const c = columns[k] as Columns;
      for (let i = starts[k] as number, hi = ends[k] as number; i < hi; i++) if (matches(c, i)) total++;
    }
  }

  const afterKey = after ? orderKey(after.day1, after.startTime, after.priceCents) : Number.NaN;
  const afterRecord = after as unknown as SessionRecord;
  let page: SessionEntry[];
  if (sort === 'date') {
    // Each list's part of the page starts past the cursor.
    const firsts = after
      ? starts.map((s, k) =>
          Math.max(s, firstPast(lists[k] as readonly SessionEntry[], columns[k] as Columns, afterKey, afterRecord)),
        )
      : starts;
    page = firstInOrder(lists, columns, firsts, ends, limit + 1, matches);
  } else {
    // Another order: keep the limit + 1 first past the cursor, by price or distance, then session order.
    const byPrice = sort === 'price';
    // With near, each list is one centre's, nearest first: its sessions share one distance, so once
    // the page is full a farther centre, or a later session of the same one, cannot enter it.
    const nearestFirst = sort === 'distance';
    const cursorPrimary = after ? (byPrice ? after.priceCents : after.metres) : 0;
    const top: Ranked[] = [];
    for (let k = 0; k < n; k++) {
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
        if (after && (primary - cursorPrimary || compareKeyed(key, e.record, afterKey, afterRecord)) <= 0) continue;
        if (last && (primary - last.primary || compareKeyed(key, e.record, last.key, last.e.record)) >= 0) {
          if (nearestFirst) break;
          continue;
        }
        let lo = 0;
        let hi2 = top.length;
        while (lo < hi2) {
          const mid = (lo + hi2) >>> 1;
          const t = top[mid] as Ranked;
          if ((t.primary - primary || compareKeyed(t.key, t.e.record, key, e.record)) < 0) lo = mid + 1;
          else hi2 = mid;
        }
        top.splice(lo, 0, { e, key, primary });
        if (top.length > limit + 1) top.pop();
      }
    }
    page = top.map((x) => x.e);
  }
  const more = page.length > query.limit;
  if (more) page.length = query.limit;
  const last = page[page.length - 1];
  const nextCursor =
    more && last
      ? encodeCursor(printOf(), {
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

/** A candidate of a page in another order than the date: its price or metres, then session order. */
interface Ranked {
  e: SessionEntry;
  key: number;
  primary: number;
}

/** How many sessions with places left between positions lo and hi of a list. */
function placesBefore(c: Columns, lo: number, hi: number): number {
  return (c.places[hi] as number) - (c.places[lo] as number);
}

/**
 * The first `need` sessions that `matches`, in session order, from `firsts` up to `ends` in each
 * list: a k-way merge over a binary heap of the lists' next matches, keyed by their order keys
 * (a list skips its own non-matching sessions before it goes back in the heap).
 */
function firstInOrder(
  lists: readonly (readonly SessionEntry[])[],
  columns: readonly Columns[],
  firsts: Int32Array,
  ends: Int32Array,
  need: number,
  matches: (c: Columns, i: number) => boolean,
): SessionEntry[] {
  const page: SessionEntry[] = [];
  const at = Int32Array.from(firsts);
  const next = (k: number) => {
    const c = columns[k] as Columns;
    const hi = ends[k] as number;
    let i = at[k] as number;
    while (i < hi && !matches(c, i)) i++;
    at[k] = i;
    return i < hi;
  };
  if (lists.length === 1) {
    const list = lists[0] as readonly SessionEntry[];
    while (page.length < need && next(0)) page.push(list[(at[0] as number)++] as SessionEntry);
    return page;
  }
  // The heap holds list numbers; a list's current session is at[k].
  const heap: number[] = [];
  const less = (a: number, b: number) => {
    const ia = at[a] as number;
    const ib = at[b] as number;
    return (
      compareKeyed(
        (columns[a] as Columns).key[ia] as number,
        ((lists[a] as readonly SessionEntry[])[ia] as SessionEntry).record,
        (columns[b] as Columns).key[ib] as number,
        ((lists[b] as readonly SessionEntry[])[ib] as SessionEntry).record,
      ) < 0
    );
  };
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l] as number, heap[m] as number)) m = l;
      if (r < heap.length && less(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
      i = m;
    }
  };
  for (let k = 0; k < lists.length; k++) if (next(k)) heap.push(k);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  while (heap.length > 0 && page.length < need) {
    const k = heap[0] as number;
    page.push((lists[k] as readonly SessionEntry[])[(at[k] as number)++] as SessionEntry);
    if (!next(k)) {
      const last = heap.pop() as number;
      if (heap.length > 0) heap[0] = last;
    }
    siftDown(0);
  }
  return page;
}

function frenchDate(day: string): string {
  return `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;
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
