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
   * bookingUrl. `centre.tail` completes it (sessionJsonLength, writeSessionJson), so that a list
   * response is a concatenation and the centre's JSON is held once, not once per session.
   */
  readonly head: Buffer;
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
  constructor(
    readonly record: SessionRecord,
    readonly centre: CentreEntry,
    readonly head: Buffer,
    readonly startsAt: number,
    readonly cancelled: boolean,
  ) {}

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
  return new Entry(s, centre, Buffer.from(head), startsAt, s.status === 'cancelled');
}

/** The length in bytes of a session's JSON (JSON.stringify(entry.view) as UTF-8). */
export function sessionJsonLength(e: SessionEntry): number {
  return e.head.length + e.centre.tail.length;
}

/** Copies a session's JSON into `into` at `at`; returns where it ends. */
export function writeSessionJson(e: SessionEntry, into: Uint8Array, at: number): number {
  into.set(e.head, at);
  into.set(e.centre.tail, at + e.head.length);
  return at + e.head.length + e.centre.tail.length;
}

/** A session's JSON in a buffer of its own (tests, and callers off the hot path). */
export function sessionJson(e: SessionEntry): Buffer {
  return Buffer.concat([e.head, e.centre.tail]);
}
