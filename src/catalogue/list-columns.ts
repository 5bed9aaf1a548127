import { civilDayNumber } from '../core/clock.js';
import { LruCache, stringBytes } from '../core/lru-cache.js';
import type { SessionEntry, SessionRecord } from './read-model/entries.js';
import { compareSessions, partitionPoint } from './read-model/session-order.js';

/**
 * A session list's fields that searches read, as typed arrays, built once per list. Lists are
 * immutable and shared between snapshots while unchanged, so a change rebuilds the columns of the
 * few lists it copied, on their first search.
 */
export interface Columns {
  readonly price: Int32Array;
  readonly spots: Int32Array;
  /** Bit w set when the session is held on weekday w (0 = Sunday), first or second day. */
  readonly weekdays: Uint8Array;
  /** The centre's small number (ListColumns.centreIndex), for masks of centres. */
  readonly centre: Int32Array;
  /** day1 as days since 1970-01-01. */
  readonly day: Int32Array;
  /** Session order as a number (see orderKey); equal keys are told apart by compareSessions. */
  readonly key: Float64Array;
  /**
   * When each session begins, in whole minutes since the epoch (see startMinute): a session is
   * listed until then. Starts are in session order only within one zone, so it is read, not searched.
   */
  readonly start: Int32Array;
  /** places[i]: how many of the first i sessions have places left (a count is two lookups). */
  readonly places: Uint32Array;
}

const CLOCK = /^[0-2]\d:[0-5]\d$/;

// A few hundred distinct times of day: each parsed once. Pure parses, shared by every catalogue;
// bounded like every cache.
const PARSES_BYTES = 256 * 1024;
const parseBytes = (text: string) => stringBytes(text) + 16;
/**
 * Days since 1970-01-01 of a YYYY-MM-DD day, or NaN when the text is not one. Counted from its
 * digits (a few tens of nanoseconds, no cache to look up): every search reads its bounds' days
 * once for each list it walks.
 */
export const dayNumber = civilDayNumber;

/** The bit of a day's weekday (0 = Sunday; 1970-01-01 was a Thursday). */
function weekdayBit(day: number): number {
  return Number.isNaN(day) ? 1 : 1 << ((((day + 4) % 7) + 7) % 7);
}

const MINUTE_SCALE = 2 ** 26;
const DAY_SCALE = 2 ** 37;
const MAX_CENTS = MINUTE_SCALE - 1;

/**
 * Session order (day1, startTime, price, id) as a number: 16 bits of day (1970–2149), 11 of minute,
 * 26 of cents, exact in a double, so that a before b implies key(a) <= key(b); equal keys are
 * compared whole. Out of range, the key saturates whole — every day before 1970 is key 0, every
 * day after 2149 the largest key — and prices past 671,088 € are clamped: either only makes more
 * keys equal. NaN when the fields are not in their stored formats.
 */
export function orderKey(day1: string, startTime: string, priceCents: number): number {
  return packKey(dayNumber(day1), minuteOf(startTime), priceCents);
}

const LAST_DAY = 0xffff;
// Above any key of a day in range (whose minute is at most 29:59, 1,799).
const MAX_KEY = 2 ** 53 - 1;

function packKey(day: number, minute: number, priceCents: number): number {
  if (Number.isNaN(day) || Number.isNaN(minute)) return NaN;
  if (day < 0) return 0;
  if (day > LAST_DAY) return MAX_KEY;
  const cents = Math.min(Math.max(Math.trunc(priceCents), 0), MAX_CENTS);
  return day * DAY_SCALE + minute * MINUTE_SCALE + cents;
}

// A few distinct start times: each parsed once (NaN: not HH:MM).
const minutes = new LruCache<string, number>(PARSES_BYTES, parseBytes);

function minuteOf(time: string): number {
  let m = minutes.get(time);
  if (m === undefined) {
    const digit = (i: number) => time.charCodeAt(i) - 48;
    m = CLOCK.test(time) ? digit(0) * 600 + digit(1) * 60 + digit(3) * 10 + digit(4) : NaN;
    minutes.set(time, m);
  }
  return m;
}

/**
 * Compares two sessions by their keys, and whole when the keys cannot tell (or are not trusted:
 * `exact` is ListColumns.keysExact, read once per search).
 */
export function compareKeyed(exact: boolean, ka: number, a: SessionRecord, kb: number, b: SessionRecord): number {
  return exact && ka !== kb && !Number.isNaN(ka - kb) ? ka - kb : compareSessions(a, b);
}

/**
 * The columns of one catalogue's session lists, and what they share: a small number for each
 * centre, and whether every key is exact. Owned by a snapshot and handed on to the snapshots
 * derived from it (which share its unchanged lists); a full rebuild starts a new one.
 */
export class ListColumns {
  readonly #columns = new WeakMap<readonly SessionEntry[], Columns>();
  // A small number for each centre id seen since the last full build, for masks over typed
  // columns; ids of deleted centres keep theirs (a few bytes each) until the next full build.
  readonly #centreIndexes = new Map<string, number>();
  /**
   * Whether every key built so far is exact: day1 a real YYYY-MM-DD day and startTime HH:MM with an
   * hour up to 29 (the database's constraints hold both). Should a record ever break that, keys are no
   * longer trusted, for the life of these lists, and every comparison goes through compareSessions (and
   * bounds through the texts): slower, still right.
   */
  #keysExact = true;

  get keysExact(): boolean {
    return this.#keysExact;
  }

  centreIndex(id: string): number {
    let i = this.#centreIndexes.get(id);
    if (i === undefined) {
      i = this.#centreIndexes.size;
      this.#centreIndexes.set(id, i);
    }
    return i;
  }

  /** A list's columns, built on its first search. */
  of(list: readonly SessionEntry[]): Columns {
    let c = this.#columns.get(list);
    if (!c) {
      c = this.#build(list);
      this.#columns.set(list, c);
    }
    return c;
  }

  #build(list: readonly SessionEntry[]): Columns {
    const n = list.length;
    const c = {
      price: new Int32Array(n),
      spots: new Int32Array(n),
      weekdays: new Uint8Array(n),
      centre: new Int32Array(n),
      day: new Int32Array(n),
      key: new Float64Array(n),
      start: new Int32Array(n),
      places: new Uint32Array(n + 1),
    };
    // Neighbours in a list mostly share their day and centre (a centre's own list, one centre):
    // the last one's numbers are reused rather than looked up again.
    let lastDay1 = '';
    let lastDay2 = '';
    let day = Number.NaN;
    let weekdays = 0;
    let lastTime = '';
    let minute = Number.NaN;
    let lastCentre = '';
    let centre = 0;
    for (let i = 0; i < n; i++) {
      const e = list[i] as SessionEntry;
      const r = e.record;
      if (r.day1 !== lastDay1 || r.day2 !== lastDay2) {
        lastDay1 = r.day1;
        lastDay2 = r.day2;
        day = dayNumber(r.day1);
        weekdays = weekdayBit(day) | weekdayBit(dayNumber(r.day2));
      }
      if (r.startTime !== lastTime) {
        lastTime = r.startTime;
        minute = minuteOf(r.startTime);
      }
      if (r.centreId !== lastCentre) {
        lastCentre = r.centreId;
        centre = this.centreIndex(r.centreId);
      }
      const key = packKey(day, minute, r.priceCents);
      if (Number.isNaN(key)) this.#keysExact = false;
      c.price[i] = r.priceCents;
      c.spots[i] = r.spotsAvailable;
      c.weekdays[i] = weekdays;
      c.centre[i] = centre;
      c.day[i] = Number.isNaN(day) ? 0 : day;
      c.key[i] = key;
      c.start[i] = startMinute(e.startsAt);
      c.places[i + 1] = (c.places[i] as number) + (r.spotsAvailable > 0 ? 1 : 0);
    }
    return c;
  }
}

const INT32_MAX = 0x7fffffff;

/**
 * A start instant (ms) as whole minutes since the epoch, which starts always are (HH:MM, zones
 * a whole number of minutes from UTC): a session has begun at `nowMs` when this is at most
 * `nowMinute(nowMs)`. An unknown start (NaN) counts as begun.
 */
export function startMinute(startsAt: number): number {
  return Number.isNaN(startsAt) ? -INT32_MAX : Math.max(-INT32_MAX, Math.min(INT32_MAX, Math.floor(startsAt / 60_000)));
}

export function nowMinute(nowMs: number): number {
  return Math.floor(nowMs / 60_000);
}

/** Index of the first session whose day1 is on or after `day`. */
export function firstOnOrAfterDay(
  exact: boolean,
  list: readonly SessionEntry[],
  c: Columns,
  day: string,
  // Given by callers that bound many lists by one day (the chunks of the list of all).
  d = dayNumber(day),
): number {
  if (!exact || Number.isNaN(d)) return partitionPoint(list, (e) => e.record.day1 < day);
  return lowerBoundInt(c.day, d);
}

/** Index of the first session whose day1 is after `day`. */
export function firstAfterDay(
  exact: boolean,
  list: readonly SessionEntry[],
  c: Columns,
  day: string,
  d = dayNumber(day),
): number {
  if (!exact || Number.isNaN(d)) return partitionPoint(list, (e) => e.record.day1 <= day);
  return lowerBoundInt(c.day, d + 1);
}

/** Index of the first session after `after` (a page's last, with its key) in session order. */
export function firstPast(
  exact: boolean,
  list: readonly SessionEntry[],
  c: Columns,
  afterKey: number,
  after: SessionRecord,
): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeyed(exact, c.key[mid] as number, (list[mid] as SessionEntry).record, afterKey, after) <= 0)
      lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lowerBoundInt(values: Int32Array, v: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
