import { canonicalDeptCode, DEPARTMENTS } from '../catalogue/geography.js';
import { type SearchQuery, SearchQueryStringSchema } from '../catalogue/schemas.js';
import { searchKey } from '../catalogue/text.js';
import { MAX_PAGE, pageNumber } from './paging.js';

/*
 * The home page's search form sends the API's own parameters (city, dept, from, to, maxPrice,
 * includeUnavailable), checked by the API's own schema; only the messages are the site's, in
 * French and next to the field. `page` is the site's addition.
 */

export const FORM_FIELDS = ['city', 'dept', 'from', 'to', 'maxPrice', 'includeUnavailable'] as const;
export type FormField = (typeof FORM_FIELDS)[number] | 'page';

export interface FieldError {
  field: FormField;
  message: string;
}

export interface ParsedSearch {
  /** What the person typed, to fill the form again (only strings; anything else is dropped). */
  values: Partial<Record<FormField, string>>;
  /** The validated filters, without a limit; undefined when a value is invalid. */
  query?: Omit<SearchQuery, 'limit'>;
  page: number;
  errors: FieldError[];
  /** True when any filter was given (the page then shows "results", not "next sessions"). */
  filtered: boolean;
}

const MESSAGES: Record<FormField, string> = {
  city: 'Ville ou département : saisissez un nom de 100 caractères au plus.',
  dept: 'Département : choisissez un département de la liste.',
  from: 'Du : saisissez une date réelle, sous la forme AAAA-MM-JJ.',
  to: 'Au : saisissez une date réelle, sous la forme AAAA-MM-JJ.',
  maxPrice: 'Prix maximum : saisissez un nombre d’euros entre 0 et 100 000, par exemple 250.',
  includeUnavailable: 'Sessions complètes : cochez la case ou laissez-la vide.',
  page: `Page : un numéro de page de 1 à ${MAX_PAGE}.`,
};
const TO_BEFORE_FROM = 'Au : la date de fin ne peut pas précéder la date de début.';

export function parseSearch(raw: Record<string, unknown>): ParsedSearch {
  const values: Partial<Record<FormField, string>> = {};
  for (const field of [...FORM_FIELDS, 'page'] as const) {
    const v = raw[field];
    if (typeof v === 'string') values[field] = v;
  }
  const errors: FieldError[] = [];

  const asked = pageNumber(raw.page);
  if (asked === undefined) errors.push({ field: 'page', message: MESSAGES.page });
  const page = asked ?? 1;

  const input: Record<string, unknown> = {};
  for (const field of FORM_FIELDS) if (raw[field] !== undefined) input[field] = raw[field];
  // People type a department in the town box too ("Rhône", "69"): search that department then.
  const typedDept = typeof raw.city === 'string' && !raw.dept ? departmentNamed(raw.city) : undefined;
  if (typedDept) {
    delete input.city;
    input.dept = typedDept;
  }
  const parsed = SearchQueryStringSchema.safeParse(input);
  let query: ParsedSearch['query'];
  if (parsed.success) {
    const { limit: _limit, ...filters } = parsed.data;
    query = filters;
  } else {
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as FormField;
      if (seen.has(field)) continue;
      seen.add(field);
      const toBeforeFrom = field === 'to' && issue.message.includes('before from');
      errors.push({ field, message: toBeforeFrom ? TO_BEFORE_FROM : (MESSAGES[field] ?? issue.message) });
    }
  }
  const filtered = FORM_FIELDS.some((f) => typeof raw[f] === 'string' && raw[f] !== '');
  return errors.length ? { values, page, errors, filtered } : { values, query, page, errors, filtered };
}

const departmentsByKey = new Map(DEPARTMENTS.map((d) => [searchKey(d.name), d.code]));

/** The department a town-box entry names exactly (by code or by name), if any. */
function departmentNamed(text: string): string | undefined {
  const trimmed = text.trim();
  if (/^(\d{1,3}|2[ab])$/i.test(trimmed)) return canonicalDeptCode(trimmed);
  return departmentsByKey.get(searchKey(trimmed));
}

/** The query string of a search page (empty fields left out). */
export function searchHref(values: Partial<Record<FormField, string>>, page: number): string {
  const params = new URLSearchParams();
  for (const field of FORM_FIELDS) {
    const v = values[field];
    if (v) params.set(field, v);
  }
  if (page > 1) params.set('page', String(page));
  const qs = params.toString();
  return qs ? `/?${qs}` : '/';
}
