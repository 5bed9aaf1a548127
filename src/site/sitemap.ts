import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { ArticleLibrary } from '../articles/articles.js';
import { DEPARTMENTS } from '../catalogue/geography.js';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { centrePath, departmentPath, sessionPath } from '../web/components.js';

const MAX_URLS = 50_000;

/**
 * sitemap.xml: the home page, the articles, the eligibility check, every department and centre, and every session
 * not yet begun. Rendered through the same escaping renderer as the pages.
 */
export function sitemapXml(baseUrl: string, snapshot: CatalogueSnapshot, articles: ArticleLibrary, today: string) {
  const paths: string[] = ['/', '/articles', '/peut-on-faire-un-stage'];
  for (const a of articles.list({ limit: Number.MAX_SAFE_INTEGER })) paths.push(`/articles/${a.slug}`);
  for (const d of DEPARTMENTS) paths.push(departmentPath(d.code));
  for (const c of snapshot.centresBySlug.keys()) paths.push(centrePath(c));
  // The protocol's limit per file; the catalogue is far below it (about 20,000 sessions a year).
  for (const e of snapshot.sessions.onOrAfter(today)) {
    if (paths.length >= MAX_URLS) break;
    paths.push(sessionPath(e.record.id));
  }
  const urlset = h(
    'urlset',
    { xmlns: 'http://www.sitemaps.org/schemas/sitemap/0.9' },
    paths.map((p) => h('url', null, h('loc', null, `${baseUrl}${p}`))),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${renderToString(urlset)}`;
}
