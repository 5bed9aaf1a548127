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
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
