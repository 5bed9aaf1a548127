import { canonicalDeptCode, DEPARTMENTS } from './geography.js';
import { arrondissementNamed, type Commune, communeLabel, geography, locationKey } from './location-index.js';

/*
 * A commune's name as people and language models write it: "Villeurbanne, France", "69100
 * Villeurbanne", "Saint-Denis 93", "Clermont (Oise)", "Grenble". What it resolves to is one
 * commune, or — when the text does not single one out — the candidates to choose from. Never a
 * silent guess: a name resolves to the most populous of its candidates only when that one clearly
 * dominates (DOMINANCE times the population of the next), and the answer then says how it was read.
 */

/** How much larger than every other candidate a commune must be to be taken without asking. */
export const DOMINANCE = 5;

/** Candidates offered when a name is ambiguous. */
const MAX_CANDIDATES = 8;

/** One place a text may mean, with a `near` value that names it alone. */
export interface PlaceCandidate {
  name: string;
  deptCode: string;
  postalCode: string;
  /** "Saint-Denis 93200": resolves to this commune alone. */
  near: string;
}

export type PlaceReading =
  | { kind: 'found'; commune: Commune; note?: string }
  | { kind: 'ambiguous'; candidates: PlaceCandidate[] }
  | { kind: 'unknown' };

const COUNTRY = /(?:^| )(?:france(?: metropolitaine)?|fr|metropole)$/;
const POSTAL = /^\d{5}$/;
const DEPT_CODE = /^(?:\d{1,3}|2a|2b)$/;

/**
 * Folded department and region names with their department codes, longest first, so that
 * "seine saint denis" wins over "saint denis": "Saint-Denis, La Réunion", "Rennes, Bretagne".
 */
const AREA_NAMES: readonly (readonly [string, readonly string[]])[] = [
  ...DEPARTMENTS.map((d) => [locationKey(d.name), [d.code]] as const),
  ...[...new Set(DEPARTMENTS.map((d) => d.region))].map(
    (region) => [locationKey(region), DEPARTMENTS.filter((d) => d.region === region).map((d) => d.code)] as const,
  ),
].sort((a, b) => b[0].length - a[0].length);

interface Parsed {
  name: string;
  postalCode?: string;
  /** The departments it must lie in (one, or a region's). */
  deptCodes?: readonly string[];
}

/**
 * What a text names, read from its parts: a postal code before or after the name, a department
 * (code or name) after it, a trailing country. The whole text is tried as a name first, so that
 * "Roissy-en-France" or "Saint-Denis" stay themselves.
 */
export function readPlace(text: string): PlaceReading {
  const whole = locationKey(text);
  if (!whole) return { kind: 'unknown' };
  const readings = parses(whole);
  // Names as written before misspellings: "Lyon France" is Lyon, not a village one letter away.
  for (const fuzzy of [false, true]) {
    for (const parsed of readings) {
      const reading = readParsed(parsed, text.trim(), fuzzy);
      if (reading.kind !== 'unknown') return reading;
    }
  }
  return { kind: 'unknown' };
}

/** The ways to split a folded text into a name and its qualifiers, most literal first. */
function parses(whole: string): Parsed[] {
  const out: Parsed[] = [{ name: whole }];
  const bare = whole.replace(COUNTRY, '').trim();
  if (bare && bare !== whole) out.push({ name: bare });
  const words = bare.split(' ');
  const first = words[0] ?? '';
  const last = words[words.length - 1] ?? '';
  if (words.length > 1 && POSTAL.test(first)) out.push({ name: words.slice(1).join(' '), postalCode: first });
  if (words.length > 1 && POSTAL.test(last)) out.push({ name: words.slice(0, -1).join(' '), postalCode: last });
  if (words.length > 1 && DEPT_CODE.test(last)) {
    const deptCode = canonicalDeptCode(last);
    if (deptCode) out.push({ name: words.slice(0, -1).join(' '), deptCodes: [deptCode] });
  }
  for (const [area, deptCodes] of AREA_NAMES) {
    if (bare.length > area.length && bare.endsWith(` ${area}`)) {
      out.push({ name: bare.slice(0, -area.length - 1), deptCodes });
      break;
    }
  }
  return out;
}

function readParsed(parsed: Parsed, typed: string, fuzzy: boolean): PlaceReading {
  const { name } = parsed;
  if (!name) return { kind: 'unknown' };
  const arrondissement = arrondissementNamed(name);
  if (arrondissement && !parsed.deptCodes && !parsed.postalCode) return { kind: 'found', commune: arrondissement };
  const g = geography();
  if (parsed.postalCode) {
    const served = g.byPostalCode.get(parsed.postalCode) ?? [];
    const named = served.filter(
      (c) => locationKey(c.name) === name || (c.parent && locationKey(c.parent.name) === name),
    );
    if (named[0]) return { kind: 'found', commune: named[0] };
  }
  const deptCodes = parsed.deptCodes ?? (parsed.postalCode ? postalDepartments(parsed.postalCode) : undefined);
  const inDept = (list: readonly Commune[]) => (deptCodes ? list.filter((c) => deptCodes.includes(c.deptCode)) : list);
  if (!fuzzy) {
    const exact = inDept(g.byName.get(name) ?? []);
    const longer = inDept(longerNames(name));
    return exact.length > 0 || longer.length > 0 ? choose(exact, longer, typed) : { kind: 'unknown' };
  }
  const close = inDept(closeNames(name));
  return close.length > 0 ? choose([], close, typed) : { kind: 'unknown' };
}

/** The departments a postal code lies in: 69100 → 69, 97400 → 974, 20000 → Corsica's two. */
function postalDepartments(postalCode: string): readonly string[] {
  if (postalCode.startsWith('20')) return ['2A', '2B'];
  const code = canonicalDeptCode(postalCode.slice(0, postalCode.startsWith('97') ? 3 : 2));
  return code ? [code] : [];
}

/** The folded names, sorted (for prefixes), and by first letter (for misspellings); built once, on first use. */
interface NameIndex {
  sorted: readonly string[];
  byInitial: ReadonlyMap<string, readonly string[]>;
}
let nameIndex: NameIndex | undefined;

function names(): NameIndex {
  if (nameIndex) return nameIndex;
  const sorted = [...geography().byName.keys()].sort();
  const byInitial = new Map<string, string[]>();
  for (const key of sorted) {
    const list = byInitial.get(key[0] as string);
    if (list) list.push(key);
    else byInitial.set(key[0] as string, [key]);
  }
  nameIndex = { sorted, byInitial };
  return nameIndex;
}

/**
 * Communes whose name begins with the text as whole words: how people shorten a town's name
 * ("Clermont" for Clermont-Ferrand, "Aix" for Aix-en-Provence).
 */
function longerNames(name: string): Commune[] {
  return communesNamedFrom(`${name} `);
}

/** The communes whose folded name begins with `prefix`, found by a binary search of the sorted names. */
export function communesNamedFrom(prefix: string): Commune[] {
  const { sorted } = names();
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: Commune[] = [];
  const byName = geography().byName;
  for (let i = lo; i < sorted.length && (sorted[i] as string).startsWith(prefix); i++) {
    out.push(...(byName.get(sorted[i] as string) ?? []));
  }
  return out;
}

/**
 * The communes whose names are the fewest edits away (at most one for a short name, two for a
 * longer one): misspellings such as "Grenble", "Marseile", "Villeurbane". Only names with the
 * same first letter are compared: a first letter is seldom the one mistyped, and it keeps a
 * miss to a small share of the 35,000 names.
 */
function closeNames(name: string): Commune[] {
  const budget = name.length < 5 ? 0 : name.length < 9 ? 1 : 2;
  if (budget === 0) return [];
  let best = budget + 1;
  let found: string[] = [];
  for (const key of names().byInitial.get(name[0] as string) ?? []) {
    if (Math.abs(key.length - name.length) > budget) continue;
    const d = editDistance(name, key, best);
    if (d < best) {
      best = d;
      found = [key];
    } else if (d === best) found.push(key);
  }
  const byName = geography().byName;
  return best <= budget ? found.flatMap((key) => byName.get(key) ?? []) : [];
}

/**
 * Optimal string alignment distance (insertions, deletions, substitutions, adjacent swaps),
 * given up as soon as it must exceed `max` (then max + 1).
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, (before[j - 2] as number) + 1);
      current[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length] as number, max + 1);
}

/**
 * One commune when it clearly dominates the others, else the candidates. A commune of exactly the
 * name typed is never passed over for a longer-named one ("Clermont" names the Clermonts of Oise
 * and Landes as much as it shortens Clermont-Ferrand): then the person chooses.
 */
function choose(exact: readonly Commune[], others: readonly Commune[], typed: string): PlaceReading {
  const all = [...exact, ...others].sort((a, b) => b.population - a.population);
  const top = all[0] as Commune;
  const next = all[1];
  const topIsExact = exact.includes(top);
  const dominates = !next || top.population >= DOMINANCE * next.population;
  if (dominates && (topIsExact || exact.length === 0)) {
    // The one commune of the very name typed needs no word; any other reading is said, with the alternatives.
    if (topIsExact && exact.length === 1) return { kind: 'found', commune: top };
    const rest = all.slice(1, 4).map(communeLabel);
    const read = `« ${typed.slice(0, 100)} » lu comme ${top.name}`;
    return {
      kind: 'found',
      commune: top,
      note: rest.length ? `${read} ; autres lieux possibles : ${rest.join(', ')}` : read,
    };
  }
  return { kind: 'ambiguous', candidates: all.slice(0, MAX_CANDIDATES).map(candidate) };
}

function candidate(c: Commune): PlaceCandidate {
  const postalCode = c.postalCodes[0] ?? '';
  return { name: c.name, deptCode: c.deptCode, postalCode, near: `${c.name} ${postalCode}`.trim() };
}
