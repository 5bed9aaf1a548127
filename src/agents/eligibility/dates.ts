/*
 * Calendar arithmetic on YYYY-MM-DD days, as the texts count: "quatre mois", "un an" run from
 * date to date, and a date with no twin in the target month (31 October + 4 months) falls on that
 * month's last day (28 or 29 February).
 */

function parts(day: string): [number, number, number] {
  return [Number(day.slice(0, 4)), Number(day.slice(5, 7)), Number(day.slice(8, 10))];
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function format(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** `day` plus whole months, clamped to the target month's last day. */
export function addMonths(day: string, months: number): string {
  const [y, m, d] = parts(day);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return format(year, month, Math.min(d, daysIn(year, month)));
}

/** Whole years since `from` on `to` (an anniversary counts on its day; 29 February's on 28 February). */
export function fullYearsBetween(from: string, to: string): number {
  let years = Number(to.slice(0, 4)) - Number(from.slice(0, 4));
  if (years > 0 && addMonths(from, years * 12) > to) years--;
  return Math.max(0, years);
}

const FRENCH = new Intl.DateTimeFormat('fr-FR', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** "1er mars 2027": a day as the French texts of the answer write it. */
export function frenchDay(day: string): string {
  return FRENCH.format(new Date(`${day}T12:00:00Z`)).replace(/^1 /, '1er ');
}
