import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import querystring from 'fast-querystring';
import type { FastifyRequest } from 'fastify';
import type { CatalogueSnapshot } from '../../src/catalogue/read-model.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import type { PageRenderer } from '../../src/site/page-cache.js';

/**
 * The work's share: a bare node:http server that makes each uncached answer of `npm run bench` the
 * way the service makes it — a search and its list body, or a page rendered — with the service's
 * own compiled code (`dist/` of SERVICE_DIR, imported as compiled) on the demo catalogue generated
 * in memory for today, and sends it as bare-server.ts does: two headers, no framework, no hooks, no
 * cache. Its ratio to the bare server is what any request path could reach with that work.
 *
 * Answers GET /api/stages?…, GET /stages/{id} and GET /?… (the home page's search); 404 to anything
 * else. A query's `_` (which defeats the caches) is ignored, as by the service. PUBLIC_BASE_URL: the
 * absolute links its answers carry (run.ts passes the service's). Prints its port.
 */
const dist = (path: string) => import(pathToFileURL(resolve(process.env.SERVICE_DIR ?? '.', 'dist', path)).href);
const { generateDemoCatalogue } = await dist('catalogue/demo/generate.js');
const { CatalogueSnapshot: Snapshot, urlBuilder } = await dist('catalogue/read-model.js');
const { searchStages } = await dist('catalogue/search.js');
const { ListBodies } = await dist('catalogue/list-body.js');
const { memoizedQueryValidator } = await dist('http/query-validator.js');
const { searchFields, SearchQueryStringSchema, toNotBeforeFrom } = await dist('catalogue/schemas.js');
const { dateIn } = await dist('core/clock.js');
const { ArticleLibrary } = await dist('articles/articles.js');
const { homeRoute } = await dist('site/routes/home.js');
const { sessionPageElement, sessionRoute } = await dist('site/routes/session.js');
const { siteInfo } = await dist('web/layout.js');

const BASE_URL = process.env.PUBLIC_BASE_URL ?? 'http://127.0.0.1';
const PLATFORM = 'Stages Récup Points';
const generated = generateDemoCatalogue({ today: dateIn(new Date()) });
const snapshot: CatalogueSnapshot = Snapshot.build(
  1,
  new Date(),
  generated.centres,
  generated.sessions,
  urlBuilder(BASE_URL),
);

// The query's validation as the stages route compiles it (each value parsed once, then remembered).
const validate = memoizedQueryValidator(
  searchFields,
  SearchQueryStringSchema,
  toNotBeforeFrom,
)({
  method: 'GET',
  url: '/api/stages',
  httpPart: 'querystring',
  schema: SearchQueryStringSchema,
}) as (data: unknown) => { value?: SearchQuery; error?: unknown };
const bodies = new ListBodies();

// The site's two routes as it registers them, on an object holding only what they read; their
// renderers are kept to be called directly.
const renderers: PageRenderer[] = [];
const app = {
  config: { mail: { url: undefined } },
  clock: { now: () => new Date() },
  catalogue: { snapshot },
  get: () => undefined,
};
const context = {
  app,
  site: siteInfo({ platformName: PLATFORM, publicBaseUrl: BASE_URL }),
  page: (render: PageRenderer) => {
    renderers.push(render);
    return async () => undefined;
  },
};
homeRoute(context);
sessionRoute(context, sessionPageElement(context, await ArticleLibrary.load()));
const [home, session] = renderers as [PageRenderer, PageRenderer];

function answer(url: string): { type: string; body: Buffer } | undefined {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const query = querystring.parse(mark < 0 ? '' : url.slice(mark + 1)) as Record<string, unknown>;
  delete query._;
  if (path === '/api/stages') {
    const { value } = validate(query);
    if (!value) return undefined;
    const result = searchStages(snapshot, value, new Date());
    const body = bodies.write(result, PLATFORM, snapshot.updatedAtIso).bytes;
    return { type: 'application/json; charset=utf-8', body };
  }
  const page = path === '/' ? home : path.startsWith('/stages/') ? session : undefined;
  const params = path.startsWith('/stages/') ? { id: path.slice('/stages/'.length) } : {};
  const rendered = page?.({ url, params, query, headers: {} } as unknown as FastifyRequest);
  return rendered && { type: 'text/html; charset=utf-8', body: rendered.body };
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const found = req.method === 'GET' ? answer(req.url ?? '/') : undefined;
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': found.type, 'content-length': found.body.length });
    res.end(found.body);
  });
});
server.listen(Number(process.env.FLOOR_PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${address.port}\n`);
});
// Exits rather than dies on a signal, so that a profile asked with --cpu-prof is written.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
