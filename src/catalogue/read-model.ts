import { departmentByCode, METROPOLITAN_TIME_ZONE } from './geography.js';
import type { Centre, StageSession } from './schemas.js';
import { searchKey } from './text.js';

/** A centre as stored. */
export interface CentreRecord {
  id: string;
  slug: string;
  name: string;
  address: string;
  city: string;
  postalCode: string;
  deptCode: string;
  lat: number;
  lng: number;
  agrementNumber: string;
}

/** A session as stored. */
export interface SessionRecord {
  id: string;
  centreId: string;
  courseNumber: string;
  day1: string;
  day2: string;
  startTime: string;
  endTime: string;
  priceCents: number;
  capacity: number;
  spotsAvailable: number;
}

export interface CentreEntry {
  readonly view: Centre;
  readonly timeZone: string;
  readonly cityKey: string;
  readonly regionKey: string;
}

export interface SessionEntry {
  readonly view: StageSession;
  /** The view serialised once, so that a list response is a concatenation. */
  readonly bytes: Buffer;
  readonly record: SessionRecord;
  readonly centre: CentreEntry;
}

export interface UrlBuilder {
  booking(sessionId: string): string;
  centre(slug: string): string;
}

/**
 * bookingUrl and centre url: the site's own pages by default, or an operator's site through
 * templates (`{id}`, `{slug}` replaced by the URL-encoded value).
 */
export function urlBuilder(
  publicBaseUrl: string,
  templates: { booking?: string | undefined; centre?: string | undefined } = {},
): UrlBuilder {
  const { booking, centre } = templates;
  return {
    booking: booking
      ? (id) => booking.replaceAll('{id}', encodeURIComponent(id))
      : (id) => `${publicBaseUrl}/stages/${id}`,
    centre: centre
      ? (slug) => centre.replaceAll('{slug}', encodeURIComponent(slug))
      : (slug) => `${publicBaseUrl}/centres/${encodeURIComponent(slug)}`,
  };
}

/** Session order everywhere: day1, then startTime, then price, then id. */
export function compareSessions(a: SessionRecord, b: SessionRecord): number {
  if (a.day1 !== b.day1) return a.day1 < b.day1 ? -1 : 1;
  if (a.startTime !== b.startTime) return a.startTime < b.startTime ? -1 : 1;
  if (a.priceCents !== b.priceCents) return a.priceCents - b.priceCents;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Immutable, fully indexed copy of the catalogue. Built off the request path and swapped in
 * whole, so a reader never sees half an update.
 */
export class CatalogueSnapshot {
  readonly sessions: readonly SessionEntry[];
  readonly sessionsByDept: ReadonlyMap<string, readonly SessionEntry[]>;
  readonly sessionsByCentre: ReadonlyMap<string, readonly SessionEntry[]>;
  readonly sessionsById: ReadonlyMap<string, SessionEntry>;
  readonly centresById: ReadonlyMap<string, CentreEntry>;
  readonly centresBySlug: ReadonlyMap<string, CentreEntry>;
  readonly updatedAtIso: string;

  constructor(
    readonly version: number,
    readonly updatedAt: Date,
    centres: readonly CentreRecord[],
    sessions: readonly SessionRecord[],
    urls: UrlBuilder,
  ) {
    this.updatedAtIso = updatedAt.toISOString();
    const centresById = new Map<string, CentreEntry>();
    const centresBySlug = new Map<string, CentreEntry>();
    for (const c of centres) {
      const dept = departmentByCode(c.deptCode);
      const view: Centre = {
        id: c.id,
        name: c.name,
        slug: c.slug,
        address: c.address,
        city: c.city,
        postalCode: c.postalCode,
        deptCode: c.deptCode,
        deptName: dept?.name ?? c.deptCode,
        region: dept?.region ?? '',
        lat: c.lat,
        lng: c.lng,
        agrementNumber: c.agrementNumber,
        url: urls.centre(c.slug),
      };
      const entry: CentreEntry = {
        view,
        timeZone: dept?.timeZone ?? METROPOLITAN_TIME_ZONE,
        cityKey: searchKey(c.city),
        regionKey: searchKey(view.region),
      };
      centresById.set(c.id, entry);
      centresBySlug.set(c.slug, entry);
    }

    const entries: SessionEntry[] = [];
    for (const s of [...sessions].sort(compareSessions)) {
      const centre = centresById.get(s.centreId);
      if (!centre) continue; // the foreign key makes this impossible; never serve a session without its centre
      const view: StageSession = {
        id: s.id,
        day1: s.day1,
        day2: s.day2,
        startTime: s.startTime,
        endTime: s.endTime,
        priceEuros: s.priceCents / 100,
        spotsAvailable: s.spotsAvailable,
        bookingUrl: urls.booking(s.id),
        centre: centre.view,
      };
      entries.push({ view, bytes: Buffer.from(JSON.stringify(view)), record: s, centre });
    }
    this.sessions = entries;
    this.sessionsById = new Map(entries.map((e) => [e.record.id, e]));
    this.sessionsByDept = groupBy(entries, (e) => e.centre.view.deptCode);
    this.sessionsByCentre = groupBy(entries, (e) => e.record.centreId);
    this.centresById = centresById;
    this.centresBySlug = centresBySlug;
  }

  get centreCount(): number {
    return this.centresById.size;
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Index of the first entry whose day1 is on or after `day` (entries are sorted by day1). */
export function firstOnOrAfter(entries: readonly SessionEntry[], day: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((entries[mid] as SessionEntry).record.day1 < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
