import { setImmediate as nextTurn } from 'node:timers/promises';
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
  /** Private contact details: set through the operator API, never in a public answer. */
  email?: string | null;
  phone?: string | null;
}

export type SessionStatus = 'scheduled' | 'cancelled';

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
  /** Absent means scheduled (the demo generator and older callers do not set it). */
  status?: SessionStatus;
}

export interface CentreEntry {
  readonly view: Centre;
  readonly record: CentreRecord;
  /** The view as JSON, spliced into every session of the centre. */
  readonly json: string;
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
  /** Cancelled sessions are known by id (their page, check_availability) but in no list. */
  readonly cancelled: boolean;
  /** A digest of `bytes` for answers' ETags, made on first use (catalogue/routes.ts). */
  digest: string | undefined;
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

const byEntry = (a: SessionEntry, b: SessionEntry) => compareSessions(a.record, b.record);

export function centreEntry(c: CentreRecord, urls: UrlBuilder): CentreEntry {
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
  return {
    view,
    record: c,
    json: JSON.stringify(view),
    timeZone: dept?.timeZone ?? METROPOLITAN_TIME_ZONE,
    cityKey: searchKey(c.city),
    regionKey: searchKey(view.region),
  };
}

const str = JSON.stringify;

/** A value that needs no JSON escaping as it is (ids, dates, times always), or else its escape, unquoted. */
function plain(value: string): string {
  return /^[\w:-]*$/.test(value) ? value : str(value).slice(1, -1);
}

export function sessionEntry(s: SessionRecord, centre: CentreEntry, urls: UrlBuilder): SessionEntry {
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
  // The same text as JSON.stringify(view), with the centre's JSON made once per centre rather than
  // once per session, and no escaping where none is needed (ids, dates and
  // times): a full build at ten times the demo spends most of its time here otherwise.
  const json =
    `{"id":"${plain(view.id)}","day1":"${plain(view.day1)}","day2":"${plain(view.day2)}","startTime":"${plain(view.startTime)}",` +
    `"endTime":"${plain(view.endTime)}","priceEuros":${view.priceEuros},"spotsAvailable":${view.spotsAvailable},` +
    `"bookingUrl":${str(view.bookingUrl)},"centre":${centre.json}}`;
  return { view, bytes: Buffer.from(json), record: s, centre, cancelled: s.status === 'cancelled', digest: undefined };
}

const SHARDS = 64;

/**
 * An id → entry map split in shards by the id's hash, so that a changed entry copies one shard
 * (a few thousand entries at ten times the demo), not the whole map: snapshots share the rest.
 */
export class ShardedMap<V> {
  private constructor(
    private readonly shards: readonly ReadonlyMap<string, V>[],
    readonly size: number,
  ) {}

  static from<V>(entries: Iterable<readonly [string, V]>): ShardedMap<V> {
    const shards = Array.from({ length: SHARDS }, () => new Map<string, V>());
    let size = 0;
    for (const [k, v] of entries) {
      (shards[shardOf(k)] as Map<string, V>).set(k, v);
      size++;
    }
    return new ShardedMap(shards, size);
  }

  get(key: string): V | undefined {
    return (this.shards[shardOf(key)] as ReadonlyMap<string, V>).get(key);
  }

  *values(): IterableIterator<V> {
    for (const shard of this.shards) yield* shard.values();
  }

  /** A copy with `changes` applied (undefined deletes), sharing every untouched shard. */
  with(changes: ReadonlyMap<string, V | undefined>): ShardedMap<V> {
    const shards = [...this.shards];
    const copied = new Set<number>();
    let size = this.size;
    for (const [k, v] of changes) {
      const i = shardOf(k);
      if (!copied.has(i)) {
        shards[i] = new Map(shards[i]);
        copied.add(i);
      }
      const shard = shards[i] as Map<string, V>;
      const had = shard.has(k);
      if (v === undefined) {
        if (had) size--;
        shard.delete(k);
      } else {
        if (!had) size++;
        shard.set(k, v);
      }
    }
    return new ShardedMap(shards, size);
  }
}

function shardOf(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) % SHARDS;
}

/** What one catalogue version (or a run of them) changed, as the database now holds it. */
export interface CatalogueDelta {
  version: number;
  updatedAt: Date;
  /** Changed centres: the record, or null when deleted. */
  centres: ReadonlyMap<string, CentreRecord | null>;
  /**
   * Changed sessions: the record, or null when deleted. Must include every session of a changed
   * centre (their views embed the centre).
   */
  sessions: ReadonlyMap<string, SessionRecord | null>;
}

interface Indexes {
  sessions: readonly SessionEntry[];
  sessionsByDept: ReadonlyMap<string, readonly SessionEntry[]>;
  sessionsByCentre: ReadonlyMap<string, readonly SessionEntry[]>;
  sessionsById: ShardedMap<SessionEntry>;
  centresById: ReadonlyMap<string, CentreEntry>;
  centresBySlug: ReadonlyMap<string, CentreEntry>;
  deptVersions: ReadonlyMap<string, number>;
}

/** Work between two turns of the event loop in a full build: a few milliseconds. */
const SLICE = 2000;

/**
 * Immutable, fully indexed copy of the catalogue. A new version is either built whole (at start,
 * or after a gap in the change log) in slices that leave the event loop free between them, or
 * derived from the previous one by `apply`, which re-serialises only the changed sessions and
 * copies only the lists they sit in. Either way it is swapped in whole: a reader never sees half
 * an update.
 */
export class CatalogueSnapshot {
  readonly updatedAtIso: string;
  /** Scheduled sessions (no cancelled one), in session order. */
  readonly sessions: readonly SessionEntry[];
  readonly sessionsByDept: ReadonlyMap<string, readonly SessionEntry[]>;
  readonly sessionsByCentre: ReadonlyMap<string, readonly SessionEntry[]>;
  /** Every session, cancelled ones included. */
  readonly sessionsById: ShardedMap<SessionEntry>;
  readonly centresById: ReadonlyMap<string, CentreEntry>;
  readonly centresBySlug: ReadonlyMap<string, CentreEntry>;
  /**
   * The version at which each department's sessions last changed (absent: not since the last full
   * build, whose version is `baseVersion`). An answer that draws only on some departments stays
   * valid while they do not change.
   */
  readonly deptVersions: ReadonlyMap<string, number>;

  private constructor(
    readonly version: number,
    readonly updatedAt: Date,
    readonly baseVersion: number,
    /** The version at which a centre last changed (names and towns: what town searches match). */
    readonly centresVersion: number,
    private readonly urls: UrlBuilder,
    indexes: Indexes,
  ) {
    this.updatedAtIso = updatedAt.toISOString();
    this.sessions = indexes.sessions;
    this.sessionsByDept = indexes.sessionsByDept;
    this.sessionsByCentre = indexes.sessionsByCentre;
    this.sessionsById = indexes.sessionsById;
    this.centresById = indexes.centresById;
    this.centresBySlug = indexes.centresBySlug;
    this.deptVersions = indexes.deptVersions;
  }

  /** Builds in one go (tests, benchmarks, small catalogues). */
  static build(
    version: number,
    updatedAt: Date,
    centres: readonly CentreRecord[],
    sessions: readonly SessionRecord[],
    urls: UrlBuilder,
  ): CatalogueSnapshot {
    const steps = buildSteps(centres, sessions, urls);
    let step = steps.next();
    while (!step.done) step = steps.next();
    return new CatalogueSnapshot(version, updatedAt, version, version, urls, step.value);
  }

  /** Builds in slices of a few milliseconds, yielding the event loop between them. */
  static async buildInSlices(
    version: number,
    updatedAt: Date,
    centres: readonly CentreRecord[],
    sessions: readonly SessionRecord[],
    urls: UrlBuilder,
  ): Promise<CatalogueSnapshot> {
    const steps = buildSteps(centres, sessions, urls);
    let step = steps.next();
    while (!step.done) {
      await nextTurn();
      step = steps.next();
    }
    return new CatalogueSnapshot(version, updatedAt, version, version, urls, step.value);
  }

  get centreCount(): number {
    return this.centresById.size;
  }

  /** The version at which a department's sessions last changed. */
  deptVersion(code: string): number {
    return this.deptVersions.get(code) ?? this.baseVersion;
  }

  /**
   * The next snapshot: this one with `delta` applied. Costs what the changed sessions cost (and the
   * lists they sit in), not what the catalogue holds.
   */
  apply(delta: CatalogueDelta): CatalogueSnapshot {
    const urls = this.urls;
    const touchedDepts = new Set<string>();

    let centresById = this.centresById;
    let centresBySlug = this.centresBySlug;
    if (delta.centres.size > 0) {
      const byId = new Map(this.centresById);
      const bySlug = new Map(this.centresBySlug);
      for (const [id, record] of delta.centres) {
        const old = byId.get(id);
        if (old) {
          touchedDepts.add(old.view.deptCode);
          if (bySlug.get(old.view.slug) === old) bySlug.delete(old.view.slug);
          byId.delete(id);
        }
        if (record) {
          const entry = centreEntry(record, urls);
          touchedDepts.add(entry.view.deptCode);
          byId.set(id, entry);
          bySlug.set(entry.view.slug, entry);
        }
      }
      centresById = byId;
      centresBySlug = bySlug;
    }

    const removed: SessionEntry[] = [];
    const added: SessionEntry[] = [];
    const byIdChanges = new Map<string, SessionEntry | undefined>();
    // A centre gone takes its sessions with it (the foreign key cascades), logged or not.
    const changedSessions = new Map(delta.sessions);
    for (const [id, record] of delta.centres) {
      if (record) continue;
      for (const e of this.sessionsByCentre.get(id) ?? [])
        if (!changedSessions.has(e.record.id)) changedSessions.set(e.record.id, null);
    }
    for (const [id, record] of changedSessions) {
      const old = this.sessionsById.get(id);
      if (old) {
        touchedDepts.add(old.centre.view.deptCode);
        if (!old.cancelled) removed.push(old);
      }
      const centre = record ? centresById.get(record.centreId) : undefined;
      if (record && centre) {
        const entry = sessionEntry(record, centre, urls);
        touchedDepts.add(centre.view.deptCode);
        byIdChanges.set(id, entry);
        if (!entry.cancelled) added.push(entry);
      } else {
        byIdChanges.set(id, undefined);
      }
    }

    const deptVersions = new Map(this.deptVersions);
    for (const code of touchedDepts) deptVersions.set(code, delta.version);
    const centresVersion = delta.centres.size > 0 ? delta.version : this.centresVersion;
    return new CatalogueSnapshot(delta.version, delta.updatedAt, this.baseVersion, centresVersion, urls, {
      sessions: updateSorted(this.sessions, removed, added),
      sessionsByDept: updateGroups(this.sessionsByDept, removed, added, (e) => e.centre.view.deptCode),
      sessionsByCentre: updateGroups(this.sessionsByCentre, removed, added, (e) => e.record.centreId),
      sessionsById: byIdChanges.size > 0 ? this.sessionsById.with(byIdChanges) : this.sessionsById,
      centresById,
      centresBySlug,
      deptVersions,
    });
  }
}

/** The whole build, as steps of about SLICE sessions each. */
function* buildSteps(
  centres: readonly CentreRecord[],
  sessions: readonly SessionRecord[],
  urls: UrlBuilder,
): Generator<void, Indexes> {
  const centresById = new Map<string, CentreEntry>();
  const centresBySlug = new Map<string, CentreEntry>();
  for (const c of centres) {
    const entry = centreEntry(c, urls);
    centresById.set(c.id, entry);
    centresBySlug.set(c.slug, entry);
  }
  // Rows come sorted from the database (see repository.ts); sorting here is for other callers.
  let ordered = sessions;
  for (let i = 1; i < ordered.length; i++) {
    if (compareSessions(ordered[i - 1] as SessionRecord, ordered[i] as SessionRecord) > 0) {
      ordered = [...sessions].sort(compareSessions);
      break;
    }
  }
  yield;
  const all: SessionEntry[] = [];
  const listed: SessionEntry[] = [];
  for (let i = 0; i < ordered.length; i++) {
    if (i % SLICE === SLICE - 1) yield;
    const s = ordered[i] as SessionRecord;
    const centre = centresById.get(s.centreId);
    if (!centre) continue; // the foreign key makes this impossible; never serve a session without its centre
    const entry = sessionEntry(s, centre, urls);
    all.push(entry);
    if (!entry.cancelled) listed.push(entry);
  }
  yield;
  const sessionsById = ShardedMap.from(all.map((e) => [e.record.id, e] as const));
  yield;
  const sessionsByDept = groupBy(listed, (e) => e.centre.view.deptCode);
  const sessionsByCentre = groupBy(listed, (e) => e.record.centreId);
  return {
    sessions: listed,
    sessionsByDept,
    sessionsByCentre,
    sessionsById,
    centresById,
    centresBySlug,
    deptVersions: new Map(),
  };
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

/** Position where `entry` is, or would be inserted, in a list in session order. */
function lowerBound(list: readonly SessionEntry[], entry: SessionEntry): number {
  return partitionPoint(list, (e) => byEntry(e, entry) < 0);
}

// Up to this many changes, splicing into a copy (a memmove each) beats filtering and merging.
const SPLICE_MAX = 32;

/** A copy of a sorted list without `removed` and with `added`, still sorted. */
function updateSorted(
  list: readonly SessionEntry[],
  removed: readonly SessionEntry[],
  added: readonly SessionEntry[],
): readonly SessionEntry[] {
  if (removed.length === 0 && added.length === 0) return list;
  if (removed.length + added.length <= SPLICE_MAX) {
    const out = list.slice();
    for (const r of removed) {
      const at = lowerBound(out, r);
      if (out[at] === r) out.splice(at, 1);
    }
    for (const a of added) out.splice(lowerBound(out, a), 0, a);
    return out;
  }
  const gone = new Set(removed);
  const kept = gone.size > 0 ? list.filter((e) => !gone.has(e)) : list;
  const incoming = [...added].sort(byEntry);
  const out: SessionEntry[] = new Array(kept.length + incoming.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < kept.length && j < incoming.length) {
    out[k++] =
      byEntry(kept[i] as SessionEntry, incoming[j] as SessionEntry) <= 0
        ? (kept[i++] as SessionEntry)
        : (incoming[j++] as SessionEntry);
  }
  while (i < kept.length) out[k++] = kept[i++] as SessionEntry;
  while (j < incoming.length) out[k++] = incoming[j++] as SessionEntry;
  return out;
}

/** A copy of grouped sorted lists with the changes applied; untouched groups are shared. */
function updateGroups(
  groups: ReadonlyMap<string, readonly SessionEntry[]>,
  removed: readonly SessionEntry[],
  added: readonly SessionEntry[],
  key: (e: SessionEntry) => string,
): ReadonlyMap<string, readonly SessionEntry[]> {
  if (removed.length === 0 && added.length === 0) return groups;
  const changes = new Map<string, { removed: SessionEntry[]; added: SessionEntry[] }>();
  const slot = (k: string) => {
    let c = changes.get(k);
    if (!c) {
      c = { removed: [], added: [] };
      changes.set(k, c);
    }
    return c;
  };
  for (const r of removed) slot(key(r)).removed.push(r);
  for (const a of added) slot(key(a)).added.push(a);
  const out = new Map(groups);
  for (const [k, c] of changes) {
    const next = updateSorted(groups.get(k) ?? [], c.removed, c.added);
    if (next.length === 0) out.delete(k);
    else out.set(k, next);
  }
  return out;
}

/** Index of the first entry whose day1 is on or after `day` (entries are sorted by day1). */
export function firstOnOrAfter(entries: readonly SessionEntry[], day: string): number {
  return partitionPoint(entries, (e) => e.record.day1 < day);
}

/**
 * In a list ordered so that `isBefore` holds for a prefix of it, the length of that prefix (the
 * position of the first item for which it does not hold): a binary search.
 */
export function partitionPoint<T>(list: readonly T[], isBefore: (item: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBefore(list[mid] as T)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
