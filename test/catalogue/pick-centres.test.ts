import { describe, expect, it } from 'vitest';
import { distanceKm, EARTH_RADIUS_KM, type Origin } from '../../src/catalogue/locations.js';
import { type CandidateCentre, latitudeSpan, pickCentres } from '../../src/catalogue/search/centres.js';
import { random } from '../helpers/random.js';

/*
 * `near` skips the haversine for centres further north or south than the radius. It must pick the
 * very centres, at the very distances, that the haversine alone picks: anywhere in France and
 * overseas, at every radius, and on the edge of the band, where rounding decides.
 */

const rnd = random(28);
const DEGREES_PER_KM = 180 / Math.PI / EARTH_RADIUS_KM;

const centre = (i: number, lat: number, lng: number): CandidateCentre => ({
  id: `c${i}`,
  cityKey: 'ville',
  regionKey: 'region',
  deptCode: '69',
  postalCode: '69000',
  lat,
  lng,
});

/** What the search picks for `near` alone: no department, town or region. */
function pickNear(centres: readonly CandidateCentre[], origin: Origin, radius: number) {
  return pickCentres(centres, { dept: undefined, city: undefined, regionNeedle: undefined, origin, radius });
}

/** What the haversine alone picks: each centre within the radius and its distance in metres. */
function byHaversine(centres: readonly CandidateCentre[], origin: Origin, radius: number): Map<string, number> {
  const within = new Map<string, number>();
  for (const c of centres) {
    const km = distanceKm(origin.lat, origin.lng, c.lat, c.lng);
    if (km <= radius) within.set(c.id, Math.round(km * 1000));
  }
  return within;
}

describe('picking the centres near a place', () => {
  const origins: Origin[] = [
    ...Array.from({ length: 40 }, () => ({ lat: 42 + rnd() * 9, lng: -5 + rnd() * 13 }) as Origin),
    { lat: 16.25, lng: -61.58 } as Origin, // Guadeloupe
    { lat: -21.11, lng: 55.53 } as Origin, // La Réunion
    { lat: 4.93, lng: -52.33 } as Origin, // Guyane
  ];

  it('keeps every centre the haversine keeps, at the same distance, at every radius', () => {
    for (const radius of [1, 5, 10, 20, 30, 50, 100, 200, 500]) {
      for (const origin of origins) {
        // Centres all around the origin, a few beyond the radius and many far away.
        const centres = Array.from({ length: 300 }, (_, i) => {
          const spread = i % 3 === 0 ? 30 : 2.5 * radius * DEGREES_PER_KM;
          return centre(i, origin.lat + (rnd() - 0.5) * spread, origin.lng + (rnd() - 0.5) * spread);
        });
        const picked = pickNear(centres, origin, radius);
        const expected = byHaversine(centres, origin, radius);
        expect(new Map(picked.metres)).toEqual(expected);
        expect(picked.centres.map((c) => c.id)).toEqual(centres.filter((c) => expected.has(c.id)).map((c) => c.id));
      }
    }
  });

  it('keeps a centre due north or south right on the radius when the haversine does', () => {
    let onTheEdge = 0;
    for (const radius of [1, 10, 30, 100, 500]) {
      for (const origin of origins) {
        const exact = radius * DEGREES_PER_KM;
        const centres = [-1e-12, -1e-15, 0, 1e-15, 1e-12].flatMap((nudge, k) => [
          centre(2 * k, origin.lat + exact * (1 + nudge), origin.lng),
          centre(2 * k + 1, origin.lat - exact * (1 + nudge), origin.lng),
        ]);
        const picked = pickNear(centres, origin, radius);
        const expected = byHaversine(centres, origin, radius);
        onTheEdge += expected.size;
        expect(new Map(picked.metres)).toEqual(expected);
      }
    }
    // The haversine does keep some of them: the edge was reached.
    expect(onTheEdge).toBeGreaterThan(0);
  });

  it('is wider than the radius by a hair only', () => {
    expect(latitudeSpan(111.2)).toBeGreaterThan(111.2 * DEGREES_PER_KM);
    expect(latitudeSpan(111.2)).toBeLessThan(111.2 * DEGREES_PER_KM * (1 + 1e-6));
  });
});
