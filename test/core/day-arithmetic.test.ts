import { describe, expect, it } from 'vitest';
import { addDays, civilDayNumber } from '../../src/core/clock.js';

/** What addDays answered before it counted days itself: through a Date. */
function throughDate(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** How list-columns read a day before it counted: Date.parse, and only a day that reads back the same. */
function parsedDayNumber(day: string): number {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(day)
    ? ms / 86_400_000
    : Number.NaN;
}

const outcome = (f: () => string) => {
  try {
    return f();
  } catch (err) {
    return `throws ${(err as Error).name}`;
  }
};

describe('addDays', () => {
  it('agrees with Date arithmetic on every day from 1899 to 2101, for offsets across months, years and leap days', () => {
    const start = Date.UTC(1899, 0, 1);
    for (let t = start; t < Date.UTC(2102, 0, 1); t += 86_400_000) {
      const day = new Date(t).toISOString().slice(0, 10);
      for (const days of [-400, -366, -365, -31, -29, -2, -1, 0, 1, 2, 28, 29, 30, 59, 365, 366, 1461]) {
        if (addDays(day, days) !== throughDate(day, days)) expect(addDays(day, days)).toBe(throughDate(day, days));
      }
    }
  });

  it('agrees with Date at the ends of the four-digit years and on texts that are not a calendar day', () => {
    const cases: [string, number][] = [
      ['0000-01-01', 0],
      ['0000-01-01', -1],
      ['0000-03-01', -1],
      ['9999-12-31', 0],
      ['9999-12-31', 1],
      ['2026-02-29', 0],
      ['2024-02-29', 365],
      ['2026-02-30', 1],
      ['2026-13-01', 1],
      ['2026-00-10', 1],
      ['2026-1-01', 1],
      ['2026-01-1x', 1],
      ['', 1],
      ['2026-03-29', 0.5],
      ['2026-03-29', Number.NaN],
      ['2000-02-28', 1],
      ['1900-02-28', 1],
      ['2100-02-28', 1],
    ];
    for (const [day, days] of cases) {
      expect(
        outcome(() => addDays(day, days)),
        `${day} + ${days}`,
      ).toBe(outcome(() => throughDate(day, days)));
    }
  });
});

describe('civilDayNumber', () => {
  it('agrees with Date.parse on every day from 1600 to 2400 and on texts that are not a calendar day', () => {
    for (let t = Date.UTC(1600, 0, 1); t < Date.UTC(2401, 0, 1); t += 86_400_000) {
      const day = new Date(t).toISOString().slice(0, 10);
      if (civilDayNumber(day) !== t / 86_400_000) expect(civilDayNumber(day)).toBe(t / 86_400_000);
    }
    const odd = ['0000-01-01', '0000-02-29', '9999-12-31', '2026-02-29', '2024-02-29', '2026-02-30', '2026-04-31'];
    odd.push('2026-13-01', '2026-00-01', '2026-01-00', '2026-1-01', '+02026-01-01', ' 2026-01-01', '2026/01/01', '');
    for (const day of odd) expect(civilDayNumber(day), day).toBe(parsedDayNumber(day));
  });
});
