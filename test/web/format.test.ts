import { describe, expect, it } from 'vitest';
import { formatPrice } from '../../src/catalogue/price.js';
import { frenchDate, frenchDayMonth, frenchTime, isoLocal, spotsLeftText } from '../../src/web/format.js';

describe('French wording on the site', () => {
  it('writes dates as people read them, with "1er"', () => {
    expect(frenchDate('2026-11-28')).toBe('samedi 28 novembre 2026');
    expect(frenchDate('2026-12-01')).toBe('mardi 1er décembre 2026');
    expect(frenchDayMonth('2027-01-01')).toBe('vendredi 1er janvier');
    expect(frenchDate('2026-12-11')).toBe('vendredi 11 décembre 2026');
  });

  it('writes times, prices and places', () => {
    expect(frenchTime('08:30')).toBe('8\u00a0h\u00a030');
    expect(frenchTime('13:00')).toBe('13\u00a0h');
    expect(formatPrice(239)).toMatch(/^239\s€$/);
    expect(formatPrice(229.5)).toMatch(/^229,50\s€$/);
    expect(spotsLeftText(0)).toBe('complet');
    expect(spotsLeftText(1)).toBe('plus qu’une place');
    expect(spotsLeftText(2)).toBe('plus que 2 places');
    expect(spotsLeftText(12)).toBe('12 places disponibles');
  });

  it('gives local times the UTC offset of their zone on that day', () => {
    // Paris changes to summer time on the last Sunday of March, back on the last Sunday of October.
    expect(isoLocal('2030-03-30', '08:30', 'Europe/Paris')).toBe('2030-03-30T08:30:00+01:00');
    expect(isoLocal('2030-04-01', '08:30', 'Europe/Paris')).toBe('2030-04-01T08:30:00+02:00');
    expect(isoLocal('2030-10-26', '16:30', 'Europe/Paris')).toBe('2030-10-26T16:30:00+02:00');
    expect(isoLocal('2030-10-28', '16:30', 'Europe/Paris')).toBe('2030-10-28T16:30:00+01:00');
    expect(isoLocal('2030-07-08', '08:30', 'America/Cayenne')).toBe('2030-07-08T08:30:00-03:00');
    expect(isoLocal('2030-07-08', '08:30', 'America/Guadeloupe')).toBe('2030-07-08T08:30:00-04:00');
    expect(isoLocal('2030-07-08', '08:30', 'Indian/Reunion')).toBe('2030-07-08T08:30:00+04:00');
    expect(isoLocal('2030-07-08', '08:30', 'Indian/Mayotte')).toBe('2030-07-08T08:30:00+03:00');
  });
});
