import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let known: Set<string> | undefined;

/**
 * Whether `postalCode` serves a commune of department `deptCode`, from the reference geography
 * (Etalab, Licence Ouverte). A prefix rule would be wrong about 150 codes that cross department
 * lines. Loaded on first use (a few tens of milliseconds; only writes need it).
 */
export function isPostalCodeOf(deptCode: string, postalCode: string): boolean {
  if (!known) {
    const communes = require('@etalab/decoupage-administratif/data/communes.json') as {
      departement?: string;
      codesPostaux?: string[];
    }[];
    known = new Set();
    for (const c of communes)
      for (const p of c.codesPostaux ?? []) if (c.departement) known.add(`${c.departement}:${p}`);
  }
  return known.has(`${deptCode}:${postalCode}`);
}
