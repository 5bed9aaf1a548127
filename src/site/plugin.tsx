import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import MarkdownIt from 'markdown-it';
import type { ArticleLibrary } from '../articles/articles.js';
import { canonicalDeptCode, departmentByCode } from '../catalogue/geography.js';
import type { CentreEntry, SessionEntry } from '../catalogue/read-model.js';
import { firstOnOrAfter } from '../catalogue/read-model.js';
import { searchStages } from '../catalogue/search.js';
import { sessionStatus } from '../catalogue/session-status.js';
import { dateIn } from '../core/clock.js';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';
import type { FormState } from '../reservations/form.js';
import { FormGuard } from '../reservations/form-guard.js';
import { smtpMailer } from '../reservations/mail.js';
import { reservationRoutes } from '../reservations/routes.js';
import { siteErrorPage } from '../web/error-page.js';
import type { SiteInfo } from '../web/layout.js';
import { HTML_CONTENT_TYPE, renderPage } from '../web/render.js';
import { STYLESHEET, STYLESHEET_PATH } from '../web/stylesheet.js';
import { nearbySessions } from './alternatives.js';
import { FORM_TOKEN_SLOT, PageCache } from './page-cache.js';
import { ArticlePage, ArticlesPage } from './pages/articles.js';
import { CentrePage } from './pages/centre.js';
import { DepartmentPage } from './pages/department.js';
import { HomePage } from './pages/home.js';
import { SessionPage } from './pages/session.js';
import { MAX_PAGE, PER_PAGE, parseSearch } from './search-query.js';
import { robotsTxt, sitemapXml } from './sitemap.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Articles the session page links to, by slug. */
const LINKED_ARTICLES = [
  'reserver-un-stage-etapes-et-documents',
  'deroulement-des-deux-jours-de-stage',
  'quand-les-points-sont-ils-credites',
];

export interface SiteOptions {
  articles: ArticleLibrary;
}

/** A rendered page, or `undefined` for the site's 404. */
type Rendered = { status: number; html: string } | undefined;

// Searched as the hidden input's whole attribute: catalogue text cannot contain it (its quotes are escaped).
const SLOT_ATTRIBUTE = Buffer.from(`name="formToken" value="${FORM_TOKEN_SLOT}"`);
const SLOT_OFFSET = SLOT_ATTRIBUTE.length - FORM_TOKEN_SLOT.length - 1;
const SLOT = Buffer.from(FORM_TOKEN_SLOT);

function pageNumber(raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return 1;
  const n = typeof raw === 'string' && /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  return n >= 1 && n <= MAX_PAGE ? n : undefined;
}

/**
 * The HTML pages for people: search, sessions, centres, departments and articles, built from
 * the in-memory read model only (no SQL on a page view) and cached per catalogue version.
 */
export async function registerSite(app: FastifyInstance, options: SiteOptions): Promise<void> {
  const site: SiteInfo = { name: app.config.platformName, baseUrl: app.config.publicBaseUrl };
  const cache = new PageCache(512);
  const guard = new FormGuard(site.baseUrl);
  const { smtpUrl, mailFrom, paymentNote } = app.config.reservations;
  const mailer = smtpUrl ? smtpMailer(smtpUrl, mailFrom) : undefined;
  if (mailer) app.addHook('onClose', async () => mailer.close());
  const markdown = new MarkdownIt({ html: false, linkify: true });
  const articleHtml = new Map(
    options.articles.list({ limit: Number.MAX_SAFE_INTEGER }).map((a) => {
      const article = options.articles.get(a.slug);
      return [a.slug, article ? markdown.render(article.body) : ''];
    }),
  );
  const linkedArticles = new Map(
    LINKED_ARTICLES.flatMap((slug) => {
      const a = options.articles.get(slug);
      return a ? [[slug, a.title] as const] : [];
    }),
  );

  /** Serves a page from the cache, or renders it (undefined → the 404 page) and keeps it. */
  function page(render: (request: FastifyRequest) => Rendered) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const epoch = PageCache.epoch(app.catalogue.snapshot.version, app.clock.now());
      let cached = cache.get(epoch, request.url);
      if (!cached) {
        const out = render(request) ?? { status: 404, html: siteErrorPage(site, 404) };
        const body = Buffer.from(out.html);
        const at = body.indexOf(SLOT_ATTRIBUTE);
        cached = { status: out.status, body, slot: at >= 0 ? at + SLOT_OFFSET : undefined };
        cache.set(epoch, request.url, cached);
      }
      // Places change at any moment: browsers revalidate rather than show a stale count, and a page
      // unchanged since (same catalogue version, same hour) costs them an empty 304.
      let etag = `"${epoch}"`;
      let body = cached.body;
      if (cached.slot === undefined) reply.header('cache-control', 'no-cache');
      else {
        // A page with the reservation form carries this visitor's token: theirs alone to keep.
        const token = guard.tokenFor(request, reply);
        body = Buffer.concat([
          cached.body.subarray(0, cached.slot),
          Buffer.from(token),
          cached.body.subarray(cached.slot + SLOT.length),
        ]);
        etag = `"${epoch}-${createHash('sha256').update(token).digest('base64url').slice(0, 10)}"`;
        // Same-origin navigations and form posts then carry a real Origin (see FormGuard).
        reply.header('cache-control', 'private, no-cache').header('referrer-policy', 'same-origin');
      }
      if (cached.status !== 200) return reply.code(cached.status).type(HTML_CONTENT_TYPE).send(body);
      reply.header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.code(200).type(HTML_CONTENT_TYPE).send(body);
    };
  }

  const today = () => dateIn(app.clock.now());

  /** A session page: its facts, and the reservation form while it is open, or its alternatives. */
  function sessionPage(
    entry: SessionEntry,
    booking: { formToken: string; state?: FormState | undefined; notice?: string | undefined },
  ): string {
    const now = app.clock.now();
    const status = sessionStatus(entry, now);
    const alternatives =
      status === 'available' ? [] : nearbySessions(app.catalogue.snapshot, entry, dateIn(now, entry.centre.timeZone));
    return renderPage(
      <SessionPage
        site={site}
        entry={entry}
        status={status}
        alternatives={alternatives}
        articles={linkedArticles}
        path={`/stages/${entry.record.id}`}
        booking={{ ...booking, mailEnabled: mailer !== undefined }}
      />,
    );
  }

  app.get(
    '/',
    { schema: { hide: true } },
    page((request) => {
      const search = parseSearch(request.query as Record<string, unknown>);
      let entries: SessionEntry[] = [];
      let hasNext = false;
      if (search.query) {
        const skip = (search.page - 1) * PER_PAGE;
        // One more than the page holds tells whether a next page exists.
        const found = searchStages(app.catalogue.snapshot, { ...search.query, limit: skip + PER_PAGE + 1 }, today());
        entries = found.entries.slice(skip, skip + PER_PAGE);
        hasNext = found.entries.length > skip + PER_PAGE;
      }
      const api = new URLSearchParams();
      for (const [k, v] of Object.entries(search.values)) if (v && k !== 'page') api.set(k, v);
      const html = renderPage(
        <HomePage
          site={site}
          search={search}
          entries={entries}
          hasNext={hasNext}
          apiHref={`/api/stages${api.size ? `?${api}` : ''}`}
        />,
      );
      return { status: search.errors.length ? 400 : 200, html };
    }),
  );

  app.get(
    '/stages/:id',
    { schema: { hide: true } },
    page((request) => {
      const { id } = request.params as { id: string };
      if (!UUID.test(id)) return undefined;
      const snapshot = app.catalogue.snapshot;
      const entry = snapshot.sessionsById.get(id.toLowerCase());
      if (!entry) return undefined;
      return { status: 200, html: sessionPage(entry, { formToken: FORM_TOKEN_SLOT }) };
    }),
  );

  await app.register(reservationRoutes({ site, guard, renderSessionPage: sessionPage, mailer, paymentNote }));

  app.get(
    '/centres/:slug',
    { schema: { hide: true } },
    page((request) => {
      const { slug } = request.params as { slug: string };
      const snapshot = app.catalogue.snapshot;
      const centre = snapshot.centresBySlug.get(slug);
      const p = pageNumber((request.query as Record<string, unknown>).page);
      if (!centre || p === undefined) return undefined;
      const all = snapshot.sessionsByCentre.get(centre.view.id) ?? [];
      const start = firstOnOrAfter(all, dateIn(app.clock.now(), centre.timeZone)) + (p - 1) * PER_PAGE;
      const entries = all.slice(start, start + PER_PAGE);
      if (p > 1 && entries.length === 0) return undefined;
      const path = `/centres/${encodeURIComponent(centre.view.slug)}`;
      const html = renderPage(
        <CentrePage
          site={site}
          centre={centre}
          entries={entries}
          page={p}
          hasNext={all.length > start + PER_PAGE}
          path={path}
        />,
      );
      return { status: 200, html };
    }),
  );

  const departmentPage = page((request) => {
    const { code } = request.params as { code: string };
    const department = departmentByCode(code);
    const p = pageNumber((request.query as Record<string, unknown>).page);
    if (!department || p === undefined) return undefined;
    const snapshot = app.catalogue.snapshot;
    const skip = (p - 1) * PER_PAGE;
    const found = searchStages(
      snapshot,
      { dept: department.code, limit: skip + PER_PAGE + 1, includeUnavailable: false },
      today(),
    );
    const entries = found.entries.slice(skip, skip + PER_PAGE);
    if (p > 1 && entries.length === 0) return undefined;
    const centres: CentreEntry[] = [];
    for (const c of snapshot.centresById.values()) if (c.view.deptCode === department.code) centres.push(c);
    centres.sort(
      (a, b) => a.view.city.localeCompare(b.view.city, 'fr') || a.view.name.localeCompare(b.view.name, 'fr'),
    );
    const html = renderPage(
      <DepartmentPage
        site={site}
        department={department}
        entries={entries}
        centres={centres}
        page={p}
        hasNext={found.entries.length > skip + PER_PAGE}
        path={`/departements/${department.code}`}
      />,
    );
    return { status: 200, html };
  });

  app.get('/departements/:code', { schema: { hide: true } }, async (request, reply) => {
    const { code } = request.params as { code: string };
    const canonical = canonicalDeptCode(code);
    // "/departements/1" or "/departements/2a" lead to the one address search engines should keep.
    if (canonical && canonical !== code) {
      const qs = request.url.indexOf('?');
      return reply.redirect(`/departements/${canonical}${qs >= 0 ? request.url.slice(qs) : ''}`, 301);
    }
    return departmentPage(request, reply);
  });

  app.get(
    '/articles',
    { schema: { hide: true } },
    page(() => ({
      status: 200,
      html: renderPage(
        <ArticlesPage site={site} articles={options.articles.list({ limit: Number.MAX_SAFE_INTEGER })} />,
      ),
    })),
  );

  app.get(
    '/articles/:slug',
    { schema: { hide: true } },
    page((request) => {
      const { slug } = request.params as { slug: string };
      const article = options.articles.get(slug);
      if (!article) return undefined;
      return {
        status: 200,
        html: renderPage(<ArticlePage site={site} article={article} bodyHtml={articleHtml.get(slug) ?? ''} />),
      };
    }),
  );

  app.get(STYLESHEET_PATH, { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(STYLESHEET),
  );

  const robots = robotsTxt(site.baseUrl);
  app.get('/robots.txt', { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=3600').send(robots),
  );

  let sitemap: { epoch: string; body: Buffer } | undefined;
  app.get('/sitemap.xml', { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) => {
    const snapshot = app.catalogue.snapshot;
    const epoch = `${snapshot.version}|${today()}`;
    if (sitemap?.epoch !== epoch) {
      sitemap = { epoch, body: Buffer.from(sitemapXml(site.baseUrl, snapshot, options.articles, today())) };
    }
    return reply
      .type('application/xml; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(sitemap.body);
  });
}
