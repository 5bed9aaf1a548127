/*
 * Lists of sessions (search results, a centre's, a department's) are shown PER_PAGE at a time,
 * on pages 1 to MAX_PAGE given by `?page=`.
 */

export const PER_PAGE = 20;
export const MAX_PAGE = 50;

/** The page asked for: 1 when `page` is absent or empty, undefined when it is not a page number. */
export function pageNumber(raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return 1;
  const n = typeof raw === 'string' && /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  return n >= 1 && n <= MAX_PAGE ? n : undefined;
}

/** How many results a search must return to fill a page and tell whether a next one exists. */
export function searchLimit(page: number): number {
  return page * PER_PAGE + 1;
}

/** One page of a list whose first entry is at `start`, and whether a next page exists. */
export function pageOf<T>(list: readonly T[], page: number, start = 0): { entries: T[]; hasNext: boolean } {
  const from = start + (page - 1) * PER_PAGE;
  return { entries: list.slice(from, from + PER_PAGE), hasNext: list.length > from + PER_PAGE };
}

/** Like pageOf, but undefined for a page past the end: its address is a 404, not an empty page. */
export function existingPage<T>(list: readonly T[], page: number, start = 0): ReturnType<typeof pageOf<T>> | undefined {
  const found = pageOf(list, page, start);
  return page > 1 && found.entries.length === 0 ? undefined : found;
}
