import { describe, expect, it } from 'vitest';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { publicHolidays } from '../../src/catalogue/demo/holidays.js';
import { DEPARTMENTS, REGION_NAMES } from '../../src/catalogue/geography.js';
import { addDays } from '../../src/core/clock.js';

const TODAY = '2026-11-22';
const demo = generateDemoCatalogue({ today: TODAY });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

describe('demo catalogue', () => {
  it('covers the 101 departments and 18 regions with about 1,400 centres and 20,000 sessions', () => {
    expect(DEPARTMENTS).toHaveLength(101);
    expect(REGION_NAMES).toHaveLength(18);
    expect(new Set(demo.centres.map((c) => c.deptCode)).size).toBe(101);
    expect(demo.centres.length).toBeGreaterThan(1300);
    expect(demo.centres.length).toBeLessThan(1500);
    expect(demo.sessions.length).toBeGreaterThan(18_000);
    expect(demo.sessions.length).toBeLessThan(22_000);
  });

  it('is reproducible for a seed and a day, and differs for another seed', () => {
    expect(generateDemoCatalogue({ today: TODAY })).toEqual(demo);
    expect(generateDemoCatalogue({ today: TODAY, seed: 'other' }).centres[0]).not.toEqual(demo.centres[0]);
  });

  it('multiplies centres and sessions by its scale, each centre keeping about its sessions, reproducibly', () => {
    const twice = generateDemoCatalogue({ today: TODAY, scale: 2 });
    expect(twice.centres.length / demo.centres.length).toBeCloseTo(2, 1);
    expect(twice.sessions.length / demo.sessions.length).toBeCloseTo(2, 1);
    expect(new Set(twice.centres.map((c) => c.slug)).size).toBe(twice.centres.length);
    expect(new Set(twice.centres.map((c) => c.agrementNumber)).size).toBe(twice.centres.length);
    expect(new Set(twice.sessions.map((s) => s.courseNumber)).size).toBe(twice.sessions.length);
    const perCentre = (d: typeof demo) => {
      const n = new Map<string, number>();
      for (const s of d.sessions) n.set(s.centreId, (n.get(s.centreId) ?? 0) + 1);
      return median([...n.values()]);
    };
    expect(Math.abs(perCentre(twice) - perCentre(demo))).toBeLessThanOrEqual(1);
    expect(generateDemoCatalogue({ today: TODAY, scale: 2 })).toEqual(twice);
  });

  it('spreads centres by population', () => {
    const per = (code: string) => demo.centres.filter((c) => c.deptCode === code).length;
    expect(per('59')).toBeGreaterThan(per('48') * 10); // Nord vs Lozère
    expect(per('75')).toBeGreaterThan(20);
  });

  it('holds two-day sessions over the next twelve months, Monday to Saturday, never on public holidays', () => {
    const holidays = new Set([...publicHolidays(2026), ...publicHolidays(2027)]);
    for (const s of demo.sessions) {
      expect(s.day2).toBe(addDays(s.day1, 1));
      expect(s.day1 > TODAY && s.day1 <= addDays(TODAY, 365)).toBe(true);
      expect(new Date(`${s.day2}T00:00:00Z`).getUTCDay()).not.toBe(0);
      expect(holidays.has(s.day1) || holidays.has(s.day2)).toBe(false);
    }
    const standard = demo.sessions.filter((s) => s.startTime === '08:30' && s.endTime === '16:30').length;
    expect(standard / demo.sessions.length).toBeGreaterThan(0.6);
  });

  it('prices from 99 to 350 euros, median near 230, dearer in Île-de-France', () => {
    const deptOf = new Map(demo.centres.map((c) => [c.id, c.deptCode]));
    const euros = demo.sessions.map((s) => s.priceCents / 100);
    expect(Math.min(...euros)).toBeGreaterThanOrEqual(99);
    expect(Math.max(...euros)).toBeLessThanOrEqual(350);
    expect(median(euros)).toBeGreaterThanOrEqual(220);
    expect(median(euros)).toBeLessThanOrEqual(240);
    const idf = new Set(DEPARTMENTS.filter((d) => d.region === 'Île-de-France').map((d) => d.code));
    const inIdf = demo.sessions.filter((s) => idf.has(deptOf.get(s.centreId) as string)).map((s) => s.priceCents);
    const elsewhere = demo.sessions.filter((s) => !idf.has(deptOf.get(s.centreId) as string)).map((s) => s.priceCents);
    expect(median(inIdf)).toBeGreaterThan(median(elsewhere) + 1500);
  });

  it('has 6 to 20 places per group, some full and many nearly full', () => {
    for (const s of demo.sessions) {
      expect(s.capacity).toBeGreaterThanOrEqual(6);
      expect(s.capacity).toBeLessThanOrEqual(20);
      expect(s.spotsAvailable).toBeGreaterThanOrEqual(0);
      expect(s.spotsAvailable).toBeLessThanOrEqual(s.capacity);
    }
    const full = demo.sessions.filter((s) => s.spotsAvailable === 0).length / demo.sessions.length;
    const nearly =
      demo.sessions.filter((s) => s.spotsAvailable > 0 && s.spotsAvailable <= 3).length / demo.sessions.length;
    expect(full).toBeGreaterThan(0.04);
    expect(full).toBeLessThan(0.25);
    expect(nearly).toBeGreaterThan(0.05);
  });

  it('gives approval numbers in the real format and unique slugs and course numbers', () => {
    for (const c of demo.centres) {
      expect(c.agrementNumber).toMatch(new RegExp(`^R\\d{2}${c.deptCode.padStart(3, '0')}\\d{5}$`));
      expect(c.slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
    expect(new Set(demo.centres.map((c) => c.slug)).size).toBe(demo.centres.length);
    expect(new Set(demo.centres.map((c) => c.agrementNumber)).size).toBe(demo.centres.length);
    expect(new Set(demo.sessions.map((s) => s.courseNumber)).size).toBe(demo.sessions.length);
  });

  it('places centres at their town: real postal code of the department, coordinates in France', () => {
    for (const c of demo.centres) {
      const prefix = c.deptCode.startsWith('2') && /[AB]/.test(c.deptCode) ? '20' : c.deptCode.slice(0, 2);
      expect(c.postalCode.startsWith(prefix), `${c.city} ${c.postalCode} ${c.deptCode}`).toBe(true);
      if (c.deptCode.length === 2) {
        expect(c.lat).toBeGreaterThan(41);
        expect(c.lat).toBeLessThan(51.2);
        expect(c.lng).toBeGreaterThan(-5.3);
        expect(c.lng).toBeLessThan(9.7);
      }
    }
  });
});
