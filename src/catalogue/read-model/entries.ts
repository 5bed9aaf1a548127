import { startInstant } from '../../core/clock.js';
import { approvalEndsAt } from '../approval.js';
import { departmentByCode, METROPOLITAN_TIME_ZONE } from '../geography.js';
import type { Centre, StageSession } from '../schemas.js';
import { searchKey } from '../text.js';
import type { UrlBuilder } from './url-builder.js';

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
  /** The prefectoral approval's day (YYYY-MM-DD); the centre leaves public answers 5 years on. */
  approvedOn?: string | null;
  /** The centre's cancellation terms, shown next to the booking form; never in a public answer. */
  cancellationTerms?: string | null;
}

/** A session's status column as stored (not what a reader sees: that is session-status.ts's SessionStatus). */
export type StoredSessionStatus = 'scheduled' | 'cancelled';

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
  status?: StoredSessionStatus;
}

export interface CentreEntry {
  readonly view: Centre;
  readonly record: CentreRecord;
  /**
   * What ends the JSON of each of the centre's sessions, as bytes held once by the centre:
   * `,"centre":` and the view as JSON, then the session's closing brace.
   */
  readonly tail: Buffer;
  readonly timeZone: string;
  readonly cityKey: string;
  readonly regionKey: string;
  /** When its approval ends (ms since the epoch; Infinity without an approval date): it then leaves every answer. */
  readonly approvalEndsAt: number;
  /** Its sessions' bookingUrl. */
  readonly urls: UrlBuilder;
}

export interface SessionEntry {
  /**
   * The session as readers see it, made afresh from the record and the centre on each read (held,
   * it was about 200 bytes a session): read it once where it is used several times.
   */
  readonly view: StageSession;
  /**
   * The view serialised once, but for its centre: the JSON from its opening brace to its
   * bookingUrl, as UTF-8 bytes, one per character (see sessionHead). `centre.tail` completes it
   * (sessionJsonLength, writeSessionJson), so that a list response is a concatenation and the
   * centre's JSON is held once, not once per session.
   */
  readonly head: string;
  readonly record: SessionRecord;
  readonly centre: CentreEntry;
  /**
   * When the course begins (ms since the epoch): day1 at startTime in the centre's zone. From then
   * on it is past: no longer listed nor bookable. NaN (taken as begun) for a day or time in no stored format.
   */
  readonly startsAt: number;
  /** Cancelled sessions are known by id (their page, check_availability) but in no list. */
  readonly cancelled: boolean;
}

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
  const timeZone = dept?.timeZone ?? METROPOLITAN_TIME_ZONE;
  return {
    view,
    record: c,
    tail: Buffer.from(`,"centre":${JSON.stringify(view)}}`),
    timeZone,
    approvalEndsAt: approvalEndsAt(c.approvedOn, timeZone),
    cityKey: searchKey(c.city),
    regionKey: searchKey(view.region),
    urls,
  };
}

const str = JSON.stringify;

/** A value that needs no JSON escaping as it is (ids, dates, times always), or else its escape, unquoted. */
function plain(value: string): string {
  return /^[\w:-]*$/.test(value) ? value : str(value).slice(1, -1);
}

/** A session entry: its view is made on each read rather than held (see SessionEntry.view). */
class Entry implements SessionEntry {
  /**
   * The start in minutes since the epoch: a small integer, held in the entry itself, where the
   * instant in milliseconds would be a heap number of its own — one object fewer per session for
   * every full collection to mark. Exact: a start is a day, an HH:MM and a zone's offset in minutes.
   * A start that is no such minute (NaN, or past V8's small integers, beyond the year 4000) is kept
   * as it is in `#otherStart`.
   */
  readonly #startMinute: number = 0;
  readonly #otherStart: number | undefined;

  constructor(
    readonly record: SessionRecord,
    readonly centre: CentreEntry,
    readonly head: string,
    startsAt: number,
    readonly cancelled: boolean,
  ) {
    const minute = startsAt / 60_000;
    // `| 0` keeps the field's representation a small integer: a division's result, even whole, may
    // come as a heap number, and one such value makes V8 box the field in every entry.
    if (Number.isInteger(minute) && Math.abs(minute) < 2 ** 30) this.#startMinute = minute | 0;
    else this.#otherStart = startsAt;
  }

  get startsAt(): number {
    return this.#otherStart ?? this.#startMinute * 60_000;
  }

  get view(): StageSession {
    const s = this.record;
    return {
      id: s.id,
      day1: s.day1,
      day2: s.day2,
      startTime: s.startTime,
      endTime: s.endTime,
      priceEuros: s.priceCents / 100,
      spotsAvailable: s.spotsAvailable,
      bookingUrl: this.centre.urls.booking(s.id),
      centre: this.centre.view,
    };
  }
}

export function sessionEntry(stored: SessionRecord, centre: CentreEntry): SessionEntry {
  // A record of one shape whatever made it (a database row, an import, the demo), whose centreId is
  // the centre's own string rather than a copy per session. Every field of SessionRecord: one added
  // there is added here (test/catalogue/read-model-entries.test.ts compares them whole).
  const s: SessionRecord = {
    id: stored.id,
    centreId: centre.record.id,
    courseNumber: stored.courseNumber,
    day1: stored.day1,
    day2: stored.day2,
    startTime: stored.startTime,
    endTime: stored.endTime,
    priceCents: stored.priceCents,
    capacity: stored.capacity,
    spotsAvailable: stored.spotsAvailable,
  };
  if (stored.status !== undefined) s.status = stored.status;
  // With centre.tail, the same text as JSON.stringify(view), with the centre's JSON made once per
  // centre rather than once per session, and no escaping where none is needed (ids, dates and
  // times): a full build at ten times the demo spends most of its time here otherwise.
  const head =
    `{"id":"${plain(s.id)}","day1":"${plain(s.day1)}","day2":"${plain(s.day2)}","startTime":"${plain(s.startTime)}",` +
    `"endTime":"${plain(s.endTime)}","priceEuros":${s.priceCents / 100},"spotsAvailable":${s.spotsAvailable},` +
    `"bookingUrl":${str(centre.urls.booking(s.id))}`;
  const startsAt = startInstant(s.day1, s.startTime, centre.timeZone);
  return new Entry(s, centre, sessionHead(head), startsAt, s.status === 'cancelled');
}

/**
 * A session's own JSON as held: its UTF-8 bytes, one per character of a string (latin1), so that
 * writing the string as latin1 gives the bytes back. A string is one object without references,
 * which a full collection marks without looking inside, where a Buffer is a typed array object over
 * a shared pool: at ten times the demo, 200,000 objects fewer to trace and a third of the marking
 * the read model costs (bench/micro/read-model-memory.ts), and no 8 KB pool kept alive by one entry
 * among its thirty that has not changed.
 */
function sessionHead(json: string): string {
  // Decoded afresh, the string is flat too: the template it comes from is a rope of many strings.
  return Buffer.from(json).toString('latin1');
}

/** The length in bytes of a session's JSON (JSON.stringify(entry.view) as UTF-8). */
export function sessionJsonLength(e: SessionEntry): number {
  return e.head.length + e.centre.tail.length;
}

/** Copies a session's JSON into `into` at `at`; returns where it ends. */
export function writeSessionJson(e: SessionEntry, into: Buffer, at: number): number {
  const { head } = e;
  into.write(head, at, 'latin1');
  into.set(e.centre.tail, at + head.length);
  return at + head.length + e.centre.tail.length;
}

/** A session's JSON in a buffer of its own (tests, and callers off the hot path). */
export function sessionJson(e: SessionEntry): Buffer {
  return Buffer.concat([Buffer.from(e.head, 'latin1'), e.centre.tail]);
}
