/**
 * CPU per uncached page, in-process, on the demo catalogue generated in memory: the session page
 * and the home page's search (`/?city=lyon`), the two pages of `npm run bench`'s `uncached`
 * scenarios, each rendered by its route's own renderer (search included) into the bytes the page
 * cache keeps, without the page cache, HTTP or Fastify's hooks. The first call of each is left
 * out (it renders what is kept for later calls).
 *
 *   npx tsx bench/micro/page-render.ts
 *
 * PAGE_RENDER_RUNS calls of each page a round (default 20,000), PAGE_RENDER_ROUNDS rounds (default 3),
 * the pages in turn; prints each round's figure and the median.
 */
import Fastify, { type FastifyRequest } from 'fastify';
import { ArticleLibrary } from '../../src/articles/articles.js';
import { generateDemoCatalogue } from '../../src/catalogue/demo/generate.js';
import { CatalogueSnapshot, urlBuilder } from '../../src/catalogue/read-model.js';
import { dateIn } from '../../src/core/clock.js';
import type { PageRenderer } from '../../src/site/page-cache.js';
import { homeRoute } from '../../src/site/routes/home.js';
import { sessionPageElement, sessionRoute } from '../../src/site/routes/session.js';
import { siteInfo } from '../../src/web/layout.js';

const BASE_URL = 'http://localhost';
const now = new Date();
const generated = generateDemoCatalogue({ today: dateIn(now), scale: 1 });
const snapshot = CatalogueSnapshot.build(1, now, generated.centres, generated.sessions, urlBuilder(BASE_URL));

// The routes as the site registers them, on an instance that holds only what they read; their
// renderers are kept to be called directly.
const app = Fastify();
app.decorate('config', { mail: { url: undefined } } as never);
app.decorate('clock', { now: () => new Date() } as never);
app.decorate('catalogue', { snapshot } as never);
const renderers: PageRenderer[] = [];
const context = {
  app,
  site: siteInfo({ platformName: 'Stages Récup Points', publicBaseUrl: BASE_URL }),
  page: (render: PageRenderer) => {
    renderers.push(render);
    return async () => undefined as never;
  },
};
homeRoute(context);
sessionRoute(context, sessionPageElement(context, await ArticleLibrary.load()));
const [home, session] = renderers as [PageRenderer, PageRenderer];

const rhone = [...(snapshot.deptSessions('69') ?? [])].find(
  (e) => e.startsAt > now.getTime() && e.record.spotsAvailable > 0,
);
if (!rhone) throw new Error('no bookable session in the Rhône');
const cases: [string, PageRenderer, FastifyRequest][] = [
  ['session page', session, { params: { id: rhone.record.id }, query: {} } as FastifyRequest],
  ['search city=lyon', home, { params: {}, query: { city: 'lyon' } } as unknown as FastifyRequest],
];

const runs = Number(process.env.PAGE_RENDER_RUNS ?? 20_000);
const rounds = Number(process.env.PAGE_RENDER_ROUNDS ?? 3);
const figures = new Map<string, number[]>();
const bytes = new Map<string, number>();
for (const [name, render, request] of cases) {
  const first = render(request);
  if (first?.status !== 200) throw new Error(`${name}: ${first?.status}`);
  for (let i = 0; i < 500; i++) render(request);
  bytes.set(name, first.body.length);
}
for (let round = 0; round < rounds; round++)
  for (const [name, render, request] of cases) {
    const start = process.cpuUsage();
    for (let i = 0; i < runs; i++) render(request);
    const used = process.cpuUsage(start);
    figures.set(name, [...(figures.get(name) ?? []), (used.user + used.system) / runs]);
  }
for (const [name, each] of figures) {
  const median = [...each].sort((a, b) => a - b)[Math.floor(each.length / 2)] as number;
  console.log(
    `${name.padEnd(18)} ${median.toFixed(1).padStart(6)} µs CPU a page (${bytes.get(name)} bytes; rounds ${each.map((x) => x.toFixed(1)).join(' ')})`,
  );
}
