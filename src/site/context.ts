import type { FastifyInstance } from 'fastify';
import type { SiteInfo } from '../web/layout.js';
import type { PageHandler, PageRenderer } from './page-cache.js';

/** What each of the site's routes is given. */
export interface SiteContext {
  app: FastifyInstance;
  site: SiteInfo;
  /** A page's handler: rendered once per catalogue version and hour, then served from the cache. */
  page: (render: PageRenderer) => PageHandler;
}
