import type { FastifyInstance } from 'fastify';
import type { ArticleLibrary } from '../articles/articles.js';
import type { SessionPageRenderer } from '../reservations/context.js';
import { FormGuard } from '../web/form-guard.js';
import { siteInfo } from '../web/layout.js';
import type { SiteContext } from './context.js';
import { cachedPages } from './page-cache.js';
import { articleRoutes } from './routes/articles.js';
import { centreRoute } from './routes/centre.js';
import { crawlerRoutes } from './routes/crawlers.js';
import { departmentRoute } from './routes/department.js';
import { homeRoute } from './routes/home.js';
import { sessionPageElement, sessionPageRenderer, sessionRoute } from './routes/session.js';
import { stylesheetRoute } from './routes/stylesheet.js';

export interface SiteOptions {
  articles: ArticleLibrary;
}

/**
 * The HTML pages for people: search, sessions, centres, departments and articles, built from
 * the in-memory read model only (no SQL on a page view) and cached per catalogue version.
 * Returns the session page's renderer, for the reservations to show a refused form on the page
 * again, and the form guard that checks where its forms' posts come from.
 */
export function registerSite(
  app: FastifyInstance,
  options: SiteOptions,
): { renderSessionPage: SessionPageRenderer; guard: FormGuard } {
  const site = siteInfo(app.config);
  const guard = new FormGuard(site.baseUrl);
  const context: SiteContext = { app, site, page: cachedPages(app, site) };
  const sessionPage = sessionPageElement(context, options.articles);
  const renderSessionPage = sessionPageRenderer(sessionPage);
  homeRoute(context);
  sessionRoute(context, sessionPage);
  centreRoute(context);
  departmentRoute(context);
  articleRoutes(context, options.articles);
  stylesheetRoute(context);
  crawlerRoutes(context, options.articles);
  return { renderSessionPage, guard };
}
