import type { CityMatcher, Origin } from '../locations.js';
import { distanceKm, EARTH_RADIUS_KM, locationKey, matchesCity } from '../locations.js';
import type { CentreEntry } from '../read-model.js';

/**
 * A centre as a candidate of a search: what location filters compare. Its sessions are the
 * snapshot's (sessionsByCentre), looked up once the centres are picked.
 */
export interface CandidateCentre {
  readonly id: string;
  readonly cityKey: string;
  readonly regionKey: string;
  readonly deptCode: string;
  readonly postalCode: string;
  readonly lat: number;
  readonly lng: number;
}

/** Every centre of a catalogue as candidates: built on the first search that names a place. */
export function candidateCentresOf(centresById: ReadonlyMap<string, CentreEntry>): CandidateCentre[] {
  return [...centresById.values()].map((c) => ({
    id: c.view.id,
    // "St-Étienne" as a centre's town matches "saint etienne" too.
    cityKey: locationKey(c.view.city),
    regionKey: c.regionKey,
    deptCode: c.view.deptCode,
    postalCode: c.view.postalCode,
    lat: c.view.lat,
    lng: c.view.lng,
  }));
}

/** The location filters of a search: what picks its centres. */
export interface LocationFilters {
  readonly dept: string | undefined;
  /** The matcher, and the text it was made from (a matcher is a function of its text). */
  readonly city: { readonly matcher: CityMatcher; readonly text: string } | undefined;
  readonly regionNeedle: string | undefined;
  readonly origin: Origin | undefined;
  readonly radius: number;
}

/** The centres a search's location filters picked. Immutable, shared by the searches with the same filters. */
export interface PickedCentres {
  readonly centres: readonly CandidateCentre[];
  /** Their departments. */
  readonly depts: readonly string[];
  /** With near: each centre's distance in metres. */
  readonly metres: ReadonlyMap<string, number>;
}

/** What identifies the location filters in the snapshot's caches. */
export function locationFiltersKey(f: LocationFilters): string {
  // The town's text goes last: the parts before it cannot hold a NUL, so the key reads back one way only.
  const place = f.origin ? `${f.origin.lat},${f.origin.lng},${f.radius}` : '';
  return `${f.dept ?? ''}\u0000${f.regionNeedle ?? '\u0001'}\u0000${place}\u0000${f.city ? f.city.text : '\u0001'}`;
}

/** The centres matching the location filters, with their distance in metres from the origin. */
export function pickCentres(centres: readonly CandidateCentre[], f: LocationFilters): PickedCentres {
  const { dept, city, regionNeedle, origin, radius } = f;
  const metres = new Map<string, number>();
  const maxDegreesNorthSouth = latitudeSpan(radius);
  const picked = centres.filter((c) => {
    if (dept !== undefined && c.deptCode !== dept) return false;
    if (city !== undefined && !matchesCity(city.matcher, c.cityKey, c.postalCode)) return false;
    if (regionNeedle !== undefined && !c.regionKey.includes(regionNeedle)) return false;
    if (origin) {
      // Most centres lie further north or south than the radius: no haversine for them.
      if (Math.abs(c.lat - origin.lat) > maxDegreesNorthSouth) return false;
      const km = distanceKm(origin.lat, origin.lng, c.lat, c.lng);
      if (km > radius) return false;
      metres.set(c.id, Math.round(km * 1000));
    }
    return true;
  });
  return { centres: picked, depts: [...new Set(picked.map((c) => c.deptCode))], metres };
}

/**
 * The difference in latitude (degrees) beyond which a place is surely further than `radiusKm`: the
 * great-circle distance is never shorter than the one along a meridian, R·|Δφ| (the haversine's
 * first term alone), so a centre past it is out whatever its longitude. A hair wider than exact,
 * so that rounding never drops a centre the haversine keeps (test/catalogue/pick-centres.test.ts).
 */
export function latitudeSpan(radiusKm: number): number {
  return (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI) * (1 + 1e-9);
}
