import { describe, expect, it } from 'vitest';
import { startInstant } from '../../src/core/clock.js';

/**
 * A session's start as an instant (core/clock.ts): a wall-clock time on a day in a zone. The read
 * model reads one per session at every start; each zone's day is kept, the time read from its digits.
 */
const at = (iso: string) => Date.parse(iso);

describe('a wall-clock time on a day in a zone, as an instant', () => {
  it('reads the zone’s offset of that day, winter and summer, overseas included', () => {
    expect(startInstant('2026-01-15', '08:30', 'Europe/Paris')).toBe(at('2026-01-15T07:30:00Z'));
    expect(startInstant('2026-07-15', '08:30', 'Europe/Paris')).toBe(at('2026-07-15T06:30:00Z'));
    expect(startInstant('2026-07-15', '08:30', 'Indian/Reunion')).toBe(at('2026-07-15T04:30:00Z'));
    expect(startInstant('2026-07-15', '08:30', 'America/Cayenne')).toBe(at('2026-07-15T11:30:00Z'));
    // The same day in another zone is not the first zone's day, kept.
    expect(startInstant('2026-07-15', '08:30', 'Europe/Paris')).toBe(at('2026-07-15T06:30:00Z'));
  });

  it('reads the nights summer time begins and ends as PostgreSQL does', () => {
    // 02:30 does not exist on 29 March 2026 in Paris: read with the offset before the change.
    expect(startInstant('2026-03-29', '02:30', 'Europe/Paris')).toBe(at('2026-03-29T01:30:00Z'));
    expect(startInstant('2026-03-29', '08:00', 'Europe/Paris')).toBe(at('2026-03-29T06:00:00Z'));
    // 02:30 happens twice on 25 October 2026: its second occurrence.
    expect(startInstant('2026-10-25', '02:30', 'Europe/Paris')).toBe(at('2026-10-25T01:30:00Z'));
    expect(startInstant('2026-10-25', '08:00', 'Europe/Paris')).toBe(at('2026-10-25T07:00:00Z'));
  });

  it('takes an hour of one digit, and hours past midnight up to the catalogue’s 29', () => {
    expect(startInstant('2026-01-15', '8:30', 'Europe/Paris')).toBe(
      startInstant('2026-01-15', '08:30', 'Europe/Paris'),
    );
    expect(startInstant('2026-01-15', '24:00', 'Europe/Paris')).toBe(
      startInstant('2026-01-16', '00:00', 'Europe/Paris'),
    );
    expect(startInstant('2026-01-15', '29:59', 'Europe/Paris')).toBe(at('2026-01-16T04:59:00Z'));
  });

  it('is NaN for a time or a day not in its format, or no such day', () => {
    for (const time of ['midi', '8h30', '08:3', '123:00', '', ':30', '08:30 ', ' 8:30', '08-30', '٠٨:٣٠'])
      expect(startInstant('2026-01-15', time, 'Europe/Paris'), time).toBeNaN();
    for (const day of ['2026-02-30', '2026-13-01', '15/01/2026', ''])
      expect(startInstant(day, '08:30', 'Europe/Paris'), day).toBeNaN();
    expect(startInstant('2028-02-29', '08:30', 'Europe/Paris')).toBe(at('2028-02-29T07:30:00Z'));
  });
});
