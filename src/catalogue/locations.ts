import { arrondissementNamed, type Commune, communeLabel, geography, locationKey } from './location-index.js';
import { communesNamedFrom, type PlaceCandidate, readPlace } from './place-names.js';

/*
 * What a search makes of a location as written: where `near` measures from (resolveOrigin), what
 * `city` matches (cityMatcher), and distances. The reference geography itself is location-index.ts.
 */
export { type Commune, geography, locationKey } from './location-index.js';

/** Where a `near` search measures from. */
export interface Origin {
  lat: number;
  lng: number;
  /** In the answer's description: "Villeurbanne (69, Rhône)", "45.77,4.88". */
  label: string;
  /** Identifies the place in a cursor. */
  key: string;
}

/** A search argument that is well formed but cannot be used (an unknown place, a cursor of another search). */
export class SearchArgumentError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
    /** For a name several places answer to: each, with the value that names it alone. */
    readonly candidates?: readonly PlaceCandidate[],
  ) {
    super(`${field}: ${reason}`);
  }
}

const LAT_LNG = /^\s*([+-]?\d{1,3}(?:\.\d+)?)\s*[,;]\s*([+-]?\d{1,3}(?:\.\d+)?)\s*$/;

/**
 * A place as written: `lat,lng`, a postal code, an INSEE code, an arrondissement ("Lyon 3e") or a
 * commune's name ("St Etienne", "saint-étienne"). A name several communes bear is the most
 * populous of them, named with its department in the answer. Throws a SearchArgumentError naming `field`.
 */
export function resolveOrigin(text: string, field = 'near'): Origin {
  const ll = LAT_LNG.exec(text);
  if (ll) {
    const lat = Number(ll[1]);
    const lng = Number(ll[2]);
    if (Math.abs(lat) > 90 || Math.abs(lng) > 180) {
      throw new SearchArgumentError(
        field,
        `"${text.trim()}" is not a position: latitude -90 to 90, longitude -180 to 180`,
      );
    }
    return { lat, lng, label: `${lat},${lng}`, key: `${lat},${lng}` };
  }
  const { commune, note } = resolveCommune(text, field);
  if (commune.lat === undefined || commune.lng === undefined) {
    throw new SearchArgumentError(
      field,
      `no position is known for ${communeLabel(commune)}: give a nearby town, a postal code, or lat,lng`,
    );
  }
  const approx = commune.approximate
    ? `, mesuré depuis ${commune.parent ? commune.parent.name : 'une commune voisine'}`
    : '';
  const read = note ? ` (${note})` : '';
  return {
    lat: commune.lat,
    lng: commune.lng,
    label: `${communeLabel(commune)}${approx}${read}`,
    key: commune.inseeCode,
  };
}

/**
 * The commune a text names (see place-names.ts), with how it was read when that is not the
 * literal name; throws a SearchArgumentError naming `field`, with the candidates when several
 * places answer to the text.
 */
export function resolveCommune(text: string, field: string): { commune: Commune; note?: string } {
  const g = geography();
  const trimmed = text.trim();
  if (/^\d{5}$/.test(trimmed)) {
    // A postal code first: "69003" is what people write for Lyon 3e (and also Albigny's INSEE code).
    const served = g.byPostalCode.get(trimmed);
    if (served?.[0]) return { commune: served[0] };
  }
  if (/^(?:\d{5}|2[AB]\d{3})$/i.test(trimmed)) {
    const c = g.byInsee.get(trimmed.toUpperCase());
    if (c) return { commune: c };
    throw new SearchArgumentError(field, `no commune has the postal code or INSEE code "${trimmed}"`);
  }
  const reading = readPlace(trimmed);
  if (reading.kind === 'found') return reading.note ? { commune: reading.commune, note: reading.note } : reading;
  const shown = trimmed.slice(0, 100);
  if (reading.kind === 'ambiguous') {
    const list = reading.candidates.map((c) => `${c.name} (${c.deptCode}): "${c.near}"`).join('; ');
    throw new SearchArgumentError(
      field,
      `"${shown}" names several places; say which, e.g. ${field}=${JSON.stringify(reading.candidates[0]?.near)}. Candidates: ${list}`,
      reading.candidates,
    );
  }
  const close = communesNamedFrom(locationKey(trimmed))
    .sort((a, b) => b.population - a.population)
    .slice(0, 5)
    .map(communeLabel);
  throw new SearchArgumentError(
    field,
    `unknown place "${shown}"${close.length ? ` (did you mean ${close.join(', ')}?)` : ''}: give a town name (Villeurbanne), a postal code (69100), an INSEE code (69266) or a position as lat,lng (45.77,4.88)`,
  );
}

/** The mean Earth radius, in kilometres. */
export const EARTH_RADIUS_KM = 6371.0088;

/** Great-circle distance in kilometres (haversine, mean Earth radius). */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * What the `city` filter matches. A postal code, an INSEE code or an arrondissement stands for its
 * commune (its whole town: "69003" and "Lyon 3e" find Lyon's centres), matched by name, and a
 * postal code also matches centres that have it; any other text is a partial match of the town,
 * ignoring case, accents, hyphens, and "St"/"Ste" for Saint/Sainte.
 */
export interface CityMatcher {
  readonly exact?: ReadonlySet<string>;
  readonly postalCode?: string;
  readonly partial?: string;
  readonly label: string;
}

export function cityMatcher(text: string): CityMatcher {
  const trimmed = text.trim();
  const key = locationKey(trimmed);
  if (/^(?:\d{5}|2[AB]\d{3})$/i.test(trimmed)) {
    const g = geography();
    const served = /^\d{5}$/.test(trimmed) ? g.byPostalCode.get(trimmed) : undefined;
    const communes =
      served ?? (g.byInsee.get(trimmed.toUpperCase()) ? [g.byInsee.get(trimmed.toUpperCase()) as Commune] : []);
    const towns = [...new Set(communes.map((c) => c.parent ?? c))];
    if (towns.length > 0) {
      return {
        exact: new Set(towns.map((c) => locationKey(c.name))),
        ...(served ? { postalCode: trimmed } : {}),
        label: `${trimmed} (${towns.map((c) => c.name).join(', ')})`,
      };
    }
  }
  const arrondissement = arrondissementNamed(key);
  if (arrondissement?.parent) {
    return {
      exact: new Set([locationKey(arrondissement.parent.name)]),
      label: `${trimmed} (${arrondissement.parent.name})`,
    };
  }
  return { partial: key, label: trimmed };
}

export function matchesCity(m: CityMatcher, cityKey: string, postalCode: string): boolean {
  if (m.partial !== undefined) return cityKey.includes(m.partial);
  return (m.exact?.has(cityKey) ?? false) || m.postalCode === postalCode;
}
