import type { ArticleLibrary } from '../../articles/articles.js';
import { dateIn } from '../../core/clock.js';
import { NOT_RATE_LIMITED } from '../../http/rate-limit.js';
import type { SiteContext } from '../context.js';
import { robotsTxt } from '../robots.js';
import { sitemapXml } from '../sitemap.js';

/** GET /robots.txt and /sitemap.xml, for search engines and agents. */
export function crawlerRoutes({ app, site }: SiteContext, articles: ArticleLibrary): void {
  const robots = robotsTxt(site.baseUrl, app.config.contentSignal);
  app.get('/robots.txt', { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=3600').send(robots),
  );

  // Rebuilt when the catalogue changes or the day turns (sessions begun that day leave it).
  let sitemap: { epoch: string; body: Buffer } | undefined;
  app.get('/sitemap.xml', { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) => {
    const snapshot = app.catalogue.snapshot;
    const today = dateIn(app.clock.now());
    const epoch = `${snapshot.version}.${snapshot.turn}|${today}`;
    if (sitemap?.epoch !== epoch) {
      sitemap = { epoch, body: Buffer.from(sitemapXml(site.baseUrl, snapshot, articles, today)) };
    }
    return reply
      .type('application/xml; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(sitemap.body);
  });
}
