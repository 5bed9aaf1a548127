import type { SessionEntry } from '../../catalogue/read-model.js';
import { type SearchScope, searchStages } from '../../catalogue/search.js';
import { sendsMail } from '../../mail/transport.js';
import { renderPageBytes } from '../../web/page-bytes.js';
import type { SiteContext } from '../context.js';
import { HomePage } from '../pages/home.js';
import { pageOf, searchLimit } from '../paging.js';
import { type ParsedSearch, parseSearch } from '../search-query.js';

/** The search's filters an alert can watch, as the alert form's hidden fields: only with a place. */
function alertFields(query: ParsedSearch['query']): Record<string, string> | undefined {
  if (!query || (!query.city && !query.dept)) return undefined;
  const fields: Record<string, string> = {};
  for (const name of ['city', 'dept', 'from', 'to', 'maxPrice'] as const) {
    const v = query[name];
    if (v !== undefined && v !== '') fields[name] = String(v);
  }
  return fields;
}

/** GET /: the search form, and the sessions it finds (the next ones when nothing is asked). */
export function homeRoute({ app, site, page }: SiteContext): void {
  const mailEnabled = sendsMail(app.config.mail);
  app.get(
    '/',
    { schema: { hide: true } },
    page((request) => {
      const search = parseSearch(request.query as Record<string, unknown>);
      let found: { entries: SessionEntry[]; hasNext: boolean } = { entries: [], hasNext: false };
      let scope: SearchScope | undefined;
      if (search.query) {
        const query = { ...search.query, limit: searchLimit(search.page) };
        const result = searchStages(app.catalogue.snapshot, query, app.clock.now());
        found = pageOf(result.entries, search.page);
        scope = result.scope;
      }
      const api = new URLSearchParams();
      for (const [k, v] of Object.entries(search.values)) if (v && k !== 'page') api.set(k, v);
      const fields = mailEnabled ? alertFields(search.query) : undefined;
      const body = renderPageBytes(
        <HomePage
          site={site}
          search={search}
          entries={found.entries}
          hasNext={found.hasNext}
          apiHref={`/api/stages${api.size ? `?${api}` : ''}`}
          alert={fields ? { fields } : undefined}
        />,
      );
      return { status: search.errors.length ? 400 : 200, body, ...(scope ? { scope } : {}) };
    }),
  );
}
