import { DEPARTMENTS } from '../catalogue/geography.js';
import { geography } from '../catalogue/locations.js';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { searchKey } from '../catalogue/text.js';

interface Town {
  name: string;
  key: string;
  dept: string;
  population: number;
}

let towns: Town[] | undefined;

/** "st etienne" → "saint etienne", "ste foy" → "sainte foy": how people shorten French names. */
function expandSaints(key: string): string {
  return key.replace(/(^| )st( |$)/g, '$1saint$2').replace(/(^| )ste( |$)/g, '$1sainte$2');
}

/**
 * The towns of the reference geography (Etalab, Licence Ouverte), as `near` resolves them: every
 * current commune and the arrondissements of Paris, Lyon and Marseille, most populous first.
 * Built on first use from the location index.
 */
function allTowns(): Town[] {
  towns ??= [...geography().byInsee.values()]
    .map((c) => ({ name: c.name, key: searchKey(c.name), dept: c.deptCode, population: c.population }))
    .sort((a, b) => b.population - a.population || (a.key < b.key ? -1 : 1));
  return towns;
}

/** Candidates are listed in full; the SDK answers the first 100 with the total and `hasMore`. */
/**
 * Town names starting with what was typed (case, accents, hyphens and "St"/"Ste" ignored), most
 * populous first; only those of `dept` when one is given. A name shared by several towns appears once.
 */
export function completeTown(typed: string, dept?: string): string[] {
  const prefix = expandSaints(searchKey(typed));
  const code = dept ? departmentCodeOf(dept) : undefined;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of allTowns()) {
    if (code && t.dept !== code) continue;
    if (!t.key.startsWith(prefix) || seen.has(t.name)) continue;
    seen.add(t.name);
    out.push(t.name);
  }
  return out;
}

/** A department code from a code ("69", "2a", "1") or a name ("Rhône", "rhone"). */
export function departmentCodeOf(input: string): string | undefined {
  const raw = input.trim().toUpperCase();
  const code = /^\d$/.test(raw) ? `0${raw}` : raw;
  const key = searchKey(input);
  return DEPARTMENTS.find((d) => d.code === code || searchKey(d.name) === key)?.code;
}

/**
 * Department codes for what was typed: a code prefix ("6" → 60…69) or the start of a name
 * ("rho" → 69). Codes are what search_stages takes.
 */
export function completeDepartment(typed: string): string[] {
  const raw = typed.trim().toUpperCase();
  const key = searchKey(typed);
  return DEPARTMENTS.filter((d) => d.code.startsWith(raw) || (key !== '' && searchKey(d.name).startsWith(key))).map(
    (d) => d.code,
  );
}

/** Slugs of the centres whose slug, name or town starts with what was typed. */
export function completeCentre(snapshot: CatalogueSnapshot, typed: string): string[] {
  const prefix = expandSaints(searchKey(typed));
  const out: string[] = [];
  for (const [slug, centre] of snapshot.centresBySlug) {
    const c = centre.view;
    if (
      slug.startsWith(typed.trim().toLowerCase()) ||
      searchKey(c.name).startsWith(prefix) ||
      searchKey(c.city).startsWith(prefix)
    )
      out.push(slug);
  }
  return out.sort();
}
