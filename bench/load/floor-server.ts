import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import querystring from 'fast-querystring';
import type { FastifyRequest } from 'fastify';
import type { CatalogueSnapshot } from '../../src/catalogue/read-model.js';
import type { SearchQuery } from '../../src/catalogue/schemas.js';
import type { SearchResult } from '../../src/catalogue/search.js';
import type { PageRenderer } from '../../src/site/page-cache.js';

/**
 * The work's share: a bare node:http server that makes each uncached answer of `npm run bench` the
 * way the service makes it — a search and its list body, or a page rendered — with the service's
 * own compiled code (`dist/` of SERVICE_DIR, imported as compiled) on the service's catalogue, and
 * sends it as bare-server.ts does: two headers, no framework, no hooks, no cache. Within one run,
 * its ratio to the bare server bounds what a request path could reach with that work.
 *
 * The catalogue: the copy the service keeps in its embedded database's directory (DATA_DIR), as a
 * restart reads it; without one, the demo catalogue generated in memory for today.
 * Answers GET /api/stages?…, GET /stages/{id} and GET /?… (the home page's search); 404 to anything
 * else, 400 to a search the service refuses. A query's `_` (which defeats the caches) is ignored, as
 * by the service. Its settings (PUBLIC_BASE_URL, PLATFORM_NAME, HEAP_GROWING_PERCENT) read as the
 * service reads them (run.ts passes the service's address). Prints its port.
 */
const dist = (path: string) => import(pathToFileURL(resolve(process.env.SERVICE_DIR ?? '.', 'dist', path)).href);
const { generateDemoCatalogue } = await dist('catalogue/demo/generate.js');
const { CatalogueSnapshot: Snapshot, urlBuilder } = await dist('catalogue/read-model.js');
const { searchStages } = await dist('catalogue/search.js');
const { ListBodies } = await dist('catalogue/list-body.js');
const { memoizedQueryValidator } = await dist('http/query-validator.js');
const { searchFields, SearchQueryStringSchema, toNotBeforeFrom } = await dist('catalogue/schemas.js');
const { dateIn } = await dist('core/clock.js');
const { catalogueCopyIn, readStoredCopy } = await dist('catalogue/stored-copy.js');
const { loadConfig } = await dist('config.js');
// Builds before HEAP_GROWING_PERCENT have none.
const heapGrowth = await dist('core/heap-growth.js').catch(() => undefined);
const { ArticleLibrary } = await dist('articles/articles.js');
const { homeRoute } = await dist('site/routes/home.js');
const { sessionPageElement, sessionRoute } = await dist('site/routes/session.js');
const { siteInfo } = await dist('web/layout.js');

// The service's settings as it reads them from the same environment: its address, name, heap growth.
const config = loadConfig(process.env);
const BASE_URL: string = config.publicBaseUrl;
const PLATFORM: string = config.platformName;

/** The service's stored copy, whatever state it names; undefined without one (or from older builds). */
async function storedCatalogue(dataDir: string | undefined) {
  if (!dataDir || !catalogueCopyIn) return undefined;
  const file: string = catalogueCopyIn(dataDir);
  const bytes = await readFile(file).catch(() => undefined);
  const firstLine = bytes?.toString('utf8', 0, Math.max(0, bytes.indexOf(0x0a)));
  if (!firstLine) return undefined;
  return readStoredCopy(file, (JSON.parse(firstLine) as { stamp: string }).stamp);
}
const catalogue = (await storedCatalogue(process.env.DATA_DIR)) ?? {
  ...generateDemoCatalogue({ today: dateIn(new Date()) }),
  updatedAt: new Date(),
};
const snapshot: CatalogueSnapshot = Snapshot.build(
  1,
  catalogue.updatedAt,
  catalogue.centres,
  catalogue.sessions,
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
  config: { mail: { smtpUrl: undefined } },
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

type Answer = { status: number; type?: string; body?: Buffer };

function answer(url: string): Answer {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const query = querystring.parse(mark < 0 ? '' : url.slice(mark + 1)) as Record<string, unknown>;
  delete query._;
  if (path === '/api/stages') {
    const { value } = validate(query);
    if (!value) return { status: 400 };
    let result: SearchResult;
    try {
      result = searchStages(snapshot, value, new Date());
    } catch {
      return { status: 400 }; // a place it cannot resolve, as the service says
    }
    const body = bodies.write(result, PLATFORM, snapshot.updatedAtIso).bytes;
    return { status: 200, type: 'application/json; charset=utf-8', body };
  }
  const page = path === '/' ? home : path.startsWith('/stages/') ? session : undefined;
  const params = path.startsWith('/stages/') ? { id: path.slice('/stages/'.length) } : {};
  const rendered = page?.({ url, params, query, headers: {} } as unknown as FastifyRequest);
  return rendered
    ? { status: rendered.status, type: 'text/html; charset=utf-8', body: rendered.body }
    : { status: 404 };
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const found = req.method === 'GET' ? answer(req.url ?? '/') : { status: 404 };
    if (!found.body) {
      res.writeHead(found.status).end();
      return;
    }
    res.writeHead(found.status, { 'content-type': found.type, 'content-length': found.body.length });
    res.end(found.body);
  });
});
server.listen(Number(process.env.FLOOR_PORT ?? 0), '127.0.0.1', () => {
  // As the service does once it listens.
  heapGrowth?.relaxHeapGrowth(config.heapGrowingPercent);
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${address.port}\n`);
});
// Exits rather than dies on a signal, so that a profile asked with --cpu-prof is written.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
