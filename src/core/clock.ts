import { LruCache, stringBytes } from './lru-cache.js';

/** Metropolitan France's zone; overseas departments have their own (catalogue/geography.ts). */
export const METROPOLITAN_TIME_ZONE = 'Europe/Paris';

/** The time, injected: tests freeze it, the service reads the system's. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

const formatters = new Map<string, Intl.DateTimeFormat>();

let lastSecond = Number.NaN;
let lastDate = '';

/** The calendar date (YYYY-MM-DD) at `instant` in `timeZone`. */
export function dateIn(instant: Date, timeZone: string = METROPOLITAN_TIME_ZONE): string {
  // The hot path asks for Paris's date on every request: remember it for the current second.
  const second = Math.floor(instant.getTime() / 1000);
  if (timeZone === METROPOLITAN_TIME_ZONE && second === lastSecond) return lastDate;
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    // en-CA formats dates as YYYY-MM-DD.
    fmt = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, fmt);
  }
  const date = fmt.format(instant);
  if (timeZone === METROPOLITAN_TIME_ZONE) {
    lastSecond = second;
    lastDate = date;
  }
  return date;
}

/** Adds whole days to a YYYY-MM-DD date. */
export function addDays(day: string, days: number): string {
  // Every search asks it a few times: counted in days rather than through a Date and its ISO text.
  const n = Number.isInteger(days) ? civilDayNumber(day) : Number.NaN;
  if (!Number.isNaN(n)) {
    const sum = n + days;
    if (sum >= FIRST_DAY_NUMBER && sum <= LAST_DAY_NUMBER) return civilDate(sum);
  }
  // Anything else (a malformed date, a year outside 0000–9999) as a Date reads it, errors included.
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

// Days since 1970-01-01 of a YYYY-MM-DD in the proleptic Gregorian calendar, and back (the
// algorithms of Howard Hinnant's "chrono-compatible low-level date algorithms").
const FIRST_DAY_NUMBER = -719_528; // 0000-01-01
const LAST_DAY_NUMBER = 2_932_896; // 9999-12-31

function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Days since 1970-01-01 of a YYYY-MM-DD day (years 0000–9999), or NaN unless `day` is exactly that
 * and a day of the calendar (2026-02-30 is not).
 */
export function civilDayNumber(day: string): number {
  if (day.length !== 10 || day.charCodeAt(4) !== 45 || day.charCodeAt(7) !== 45) return Number.NaN;
  const y = digitsAt(day, 0, 4);
  const m = digitsAt(day, 5, 2);
  const d = digitsAt(day, 8, 2);
  if (!(m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m))) return Number.NaN;
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

function civilDate(n: number): string {
  const z = n + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC, in minutes, at `instantMs` (its rules for that day: summer time included). */
function offsetMinutesAt(instantMs: number, timeZone: string): number {
  let fmt = offsetFormatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormatters.set(timeZone, fmt);
  }
  const name = fmt.formatToParts(instantMs).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

const HOUR_MS = 3_600_000;

/** A zone's local day: its midnight read as UTC (NaN for no such day), and its offset over the day (NaN: it changes that day). */
interface ZoneDay {
  midnight: number;
  offset: number;
}

// Each zone's day, for the few hundred days a catalogue spans: a session's start is then a sum, not a
// date parsed and two time-zone look-ups (a start at 10× the demo reads 200,000). Bounded like every cache.
const zoneDays = new LruCache<string, ZoneDay>(512 * 1024, (key) => stringBytes(key) + 48);

function zoneDay(day: string, timeZone: string): ZoneDay {
  const key = `${timeZone} ${day}`;
  let known = zoneDays.get(key);
  if (known === undefined) {
    let midnight = Date.parse(`${day}T00:00:00Z`);
    if (Number.isNaN(midnight) || !new Date(midnight).toISOString().startsWith(day)) midnight = Number.NaN;
    let offset = Number.NaN;
    if (!Number.isNaN(midnight)) {
      // The local day and its late hours lie within these UTC bounds in any zone (offsets < 15 h).
      const before = offsetMinutesAt(midnight - 15 * HOUR_MS, timeZone);
      offset = before === offsetMinutesAt(midnight + 45 * HOUR_MS, timeZone) ? before : Number.NaN;
    }
    known = { midnight, offset };
    zoneDays.set(key, known);
  }
  return known;
}

/** Minutes past midnight of a wall-clock time written as one or two digits, a colon and two digits; NaN otherwise. */
function minutesOf(time: string): number {
  const colon = time.length - 3;
  if ((colon !== 1 && colon !== 2) || time.charCodeAt(colon) !== 58) return Number.NaN;
  let hours = 0;
  for (let i = 0; i < colon; i++) {
    const d = time.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    hours = hours * 10 + d;
  }
  const tens = time.charCodeAt(colon + 1) - 48;
  const units = time.charCodeAt(colon + 2) - 48;
  if (tens < 0 || tens > 9 || units < 0 || units > 9) return Number.NaN;
  return hours * 60 + tens * 10 + units;
}

/**
 * The instant (ms since the epoch) a wall-clock `time` (HH:MM, hours up to 29 as the catalogue
 * allows) on `day` (YYYY-MM-DD) denotes in `timeZone`; NaN when either is not in that format.
 * On the night summer time begins, a time that does not exist is read with the offset before the
 * change; on the night it ends, a time that happens twice is its second occurrence — as
 * PostgreSQL's `AT TIME ZONE` reads them, so that the service and the database agree.
 */
export function startInstant(day: string, time: string, timeZone: string): number {
  const minutes = minutesOf(time);
  if (Number.isNaN(minutes)) return Number.NaN;
  const { midnight, offset } = zoneDay(day, timeZone);
  if (Number.isNaN(midnight)) return Number.NaN;
  const asUtc = midnight + minutes * 60_000;
  // A day the offset changes: the offset at the instant this wall time denotes, guessed with the UTC reading, then corrected.
  const at = Number.isNaN(offset)
    ? offsetMinutesAt(asUtc - offsetMinutesAt(asUtc, timeZone) * 60_000, timeZone)
    : offset;
  return asUtc - at * 60_000;
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar day, YYYY-MM-DD, from year 1 (PostgreSQL has no year 0): not 2026-13-45 nor 2026-02-30. */
export function isDay(text: string): boolean {
  if (!ISO_DAY.test(text) || text.startsWith('0000')) return false;
  const instant = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(instant) && new Date(instant).toISOString().slice(0, 10) === text;
}

/** An instant as the lists print it (toISOString), from year 1. */
export function instantOf(text: string): Date | undefined {
  const instant = new Date(text);
  return !Number.isNaN(instant.getTime()) && instant.toISOString() === text && !text.startsWith('0000')
    ? instant
    : undefined;
}

/** A real calendar day from `first` to `last` year, inclusive: the years a course, a declaration or an approval may carry. */
export function isDayBetween(text: string, first: number, last: number): boolean {
  const year = Number(text.slice(0, 4));
  return isDay(text) && year >= first && year <= last;
}
