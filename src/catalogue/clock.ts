import { METROPOLITAN_TIME_ZONE } from './geography.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) at `instant` in `timeZone`. */
export function dateIn(instant: Date, timeZone: string = METROPOLITAN_TIME_ZONE): string {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    // en-CA formats dates as YYYY-MM-DD.
    fmt = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, fmt);
  }
  return fmt.format(instant);
}

/** Adds whole days to a YYYY-MM-DD date. */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
