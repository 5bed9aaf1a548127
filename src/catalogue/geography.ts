import { createRequire } from 'node:module';
import { METROPOLITAN_TIME_ZONE } from '../core/clock.js';

// The package's root entry point is broken; its data files are sound and load directly.
const require = createRequire(import.meta.url);

interface EtalabDepartement {
  code: string;
  nom: string;
  region: string;
  zone: string;
}
interface EtalabRegion {
  code: string;
  nom: string;
  zone: string;
}

export interface Department {
  code: string;
  name: string;
  regionCode: string;
  region: string;
  /** IANA zone in which "today" and session times are read. */
  timeZone: string;
}

export const OVERSEAS_TIME_ZONES: Readonly<Record<string, string>> = {
  '971': 'America/Guadeloupe',
  '972': 'America/Martinique',
  '973': 'America/Cayenne',
  '974': 'Indian/Reunion',
  '976': 'Indian/Mayotte',
};

export { METROPOLITAN_TIME_ZONE };

const regions = (require('@etalab/decoupage-administratif/data/regions.json') as EtalabRegion[]).filter(
  (r) => r.zone !== 'com',
);
const regionNames = new Map(regions.map((r) => [r.code, r.nom]));

/** The 101 departments (96 metropolitan, 5 overseas), in code order. */
export const DEPARTMENTS: readonly Department[] = (
  require('@etalab/decoupage-administratif/data/departements.json') as EtalabDepartement[]
)
  .filter((d) => d.zone !== 'com')
  .map((d) => ({
    code: d.code,
    name: d.nom,
    regionCode: d.region,
    region: regionNames.get(d.region) ?? d.region,
    timeZone: OVERSEAS_TIME_ZONES[d.code] ?? METROPOLITAN_TIME_ZONE,
  }));

export const REGION_NAMES: readonly string[] = regions.map((r) => r.nom);

const byCode = new Map(DEPARTMENTS.map((d) => [d.code, d]));

export function departmentByCode(code: string): Department | undefined {
  return byCode.get(code);
}

/**
 * Canonical department code for what a person types: "1" and "01" → "01", "2a" → "2A",
 * "971" → "971". Returns undefined for anything that is not one of the 101 departments.
 */
export function canonicalDeptCode(input: string): string | undefined {
  const raw = input.trim().toUpperCase();
  const code = /^\d$/.test(raw) ? `0${raw}` : raw;
  return byCode.has(code) ? code : undefined;
}
