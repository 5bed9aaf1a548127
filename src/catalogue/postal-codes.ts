import { readReferenceData } from './reference-data.js';

let known: Set<string> | undefined;

/**
 * Whether `postalCode` serves a commune of department `deptCode`, from the reference geography
 * (Etalab, Licence Ouverte). A prefix rule would be wrong about 150 codes that cross department
 * lines. Loaded on first use (a few tens of milliseconds; only writes need it).
 */
export function isPostalCodeOf(deptCode: string, postalCode: string): boolean {
  if (!known) {
    const communes = readReferenceData<
      {
        departement?: string;
        codesPostaux?: string[];
      }[]
    >('@etalab/decoupage-administratif/data/communes.json');
    known = new Set();
    for (const c of communes)
      for (const p of c.codesPostaux ?? []) if (c.departement) known.add(`${c.departement}:${p}`);
  }
  return known.has(`${deptCode}:${postalCode}`);
}
