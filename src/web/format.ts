import type { SessionEntry } from '../catalogue/read-model.js';
import { LruCache, stringBytes } from '../core/lru-cache.js';

/*
 * French wording of dates, times and places, as people read them on the pages and in the emails
 * (prices: catalogue/price.ts, which the API's texts use too).
 * Dates are calendar days (YYYY-MM-DD) and times wall-clock times (HH:MM) of the centre's zone:
 * they are formatted as they are, never moved through the server's zone.
 */

const longDate = new Intl.DateTimeFormat('fr-FR', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});
const dayMonth = new Intl.DateTimeFormat('fr-FR', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });

/** "1 décembre" is written "1er décembre" in French. */
function firstOfMonth(text: string): string {
  return text.replace(/(^|\s)1(\s)/, '$11er$2');
}

/**
 * Intl formatting costs microseconds a call and a results page makes dozens; the set of days
 * and times in a catalogue is small, so each wording is computed once.
 */
// Each wording's cache: a few thousand days and times.
const MEMO_BYTES = 512 * 1024;

function memo(f: (key: string) => string): (key: string) => string {
  const cache = new LruCache<string, string>(MEMO_BYTES, (key, value) => stringBytes(key) + stringBytes(value));
  return (key) => cache.getOrCompute(key, f);
}

/** "samedi 28 novembre 2026" */
export const frenchDate = memo((day) => firstOfMonth(longDate.format(new Date(`${day}T12:00:00Z`))));

/** "dimanche 29 novembre" (no year): the second day, next to the first. */
export const frenchDayMonth = memo((day) => firstOfMonth(dayMonth.format(new Date(`${day}T12:00:00Z`))));

const NBSP = '\u00a0';

/** "08:30" → "8 h 30", "09:00" → "9 h", with no-break spaces so that a time never splits. */
export const frenchTime = memo((time) => {
  const [h, m] = time.split(':');
  return `${Number(h)}${NBSP}h${m === '00' ? '' : `${NBSP}${m}`}`;
});

/** "de 8 h 30 à 16 h 30" plus the zone overseas. */
export function hours(entry: SessionEntry): string {
  const s = entry.view;
  const zone = zoneNote(entry.centre.timeZone);
  return `de ${frenchTime(s.startTime)} à ${frenchTime(s.endTime)}${zone ? ` (${zone})` : ''}`;
}

/** Spots left, in words: few are worth a warning; many are just a number. */
export function spotsLeftText(spots: number): string {
  if (spots <= 0) return 'complet';
  if (spots === 1) return 'plus qu’une place';
  if (spots <= 5) return `plus que ${spots} places`;
  return `${spots} places disponibles`;
}

/** Offsets are read from the zone's rules for that very day (summer time included). */
const offsetFormatters = new Map<string, Intl.DateTimeFormat>();
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

/** A local wall-clock time as ISO 8601 with the zone's UTC offset: "2026-11-28T08:30:00+01:00". */
export function isoLocal(day: string, time: string, timeZone: string): string {
  const asUtc = Date.parse(`${day}T${time}:00Z`);
  // The offset at the instant this wall time denotes: guess with the UTC reading, then correct.
  const offset = offsetMinutesAt(asUtc - offsetMinutesAt(asUtc, timeZone) * 60_000, timeZone);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${day}T${time}:00${sign}${hh}:${mm}`;
}

const ZONE_NAMES: Record<string, string> = {
  'America/Guadeloupe': 'heure de la Guadeloupe',
  'America/Martinique': 'heure de la Martinique',
  'America/Cayenne': 'heure de la Guyane',
  'Indian/Reunion': 'heure de La Réunion',
  'Indian/Mayotte': 'heure de Mayotte',
};

/** Overseas, the zone is named next to the times; in metropolitan France it goes without saying. */
export function zoneNote(timeZone: string): string | undefined {
  return ZONE_NAMES[timeZone];
}

/** The wall-clock time of `instant` in `timeZone`, "HH:MM" (24 h). */
export function clockTimeIn(instant: Date, timeZone: string): string {
  let fmt = clockFormatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    clockFormatters.set(timeZone, fmt);
  }
  return fmt.format(instant);
}
const clockFormatters = new Map<string, Intl.DateTimeFormat>();
