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
  /** The view as JSON, spliced into every session of the centre. */
  readonly json: string;
  readonly timeZone: string;
  readonly cityKey: string;
  readonly regionKey: string;
  /** When its approval ends (ms since the epoch; Infinity without an approval date): it then leaves every answer. */
  readonly approvalEndsAt: number;
}

export interface SessionEntry {
  readonly view: StageSession;
  /** The view serialised once, so that a list response is a concatenation. */
  readonly bytes: Buffer;
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
    json: JSON.stringify(view),
    timeZone,
    approvalEndsAt: approvalEndsAt(c.approvedOn, timeZone),
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
  const startsAt = startInstant(s.day1, s.startTime, centre.timeZone);
  return { view, bytes: Buffer.from(json), record: s, centre, startsAt, cancelled: s.status === 'cancelled' };
}
