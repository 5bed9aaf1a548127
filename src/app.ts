import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { adminPlugin } from './admin/plugin.js';
import { ArticleLibrary } from './articles/articles.js';
import { registerAuth } from './auth/plugin.js';
import { Catalogue } from './catalogue/catalogue.js';
import { eventsRoutes } from './catalogue/events-route.js';
import { urlBuilder } from './catalogue/read-model.js';
import { stagesRoutes } from './catalogue/routes.js';
import { sessionRoute } from './catalogue/session-route.js';
import type { Config } from './config.js';
import { type Clock, systemClock } from './core/clock.js';
import type { Database } from './db/connect.js';
import { registerOpenApi, registerOpenApiRoute } from './discovery/openapi.js';
import { discoveryRoutes } from './discovery/routes.js';
import { docsRoutes } from './docs/routes.js';
import { healthRoutes } from './health/routes.js';
import { clientErrorHandler, frameworkErrors, requestIdFrom } from './http/client-errors.js';
import { registerErrorHandling } from './http/errors.js';
import { registerLifecycle } from './http/lifecycle.js';
import { registerMetrics } from './http/metrics.js';
import { registerRateLimit } from './http/rate-limit.js';
import { registerRequestLog } from './http/request-log.js';
import { registerResponseHeaders } from './http/security-headers.js';
import { registerMcp } from './mcp/plugin.js';
import { MCP_TOOL_NAMES } from './mcp/server.js';
import { registerServerCard } from './mcp/server-card.js';
import { registerReservations } from './reservations/plugin.js';
import { registerSite } from './site/plugin.js';
import { siteErrorPage } from './web/error-page.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    catalogue: Catalogue;
    clock: Clock;
  }
}

export interface AppDeps {
  /** An open, migrated database. The caller owns it and closes it after the app. */
  database: Database;
  clock?: Clock;
  /** The articles; read from content/articles when absent. */
  articles?: ArticleLibrary;
  /** Pino logger options or false; defaults to the configured level. */
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
}

/** A hop count trusts that many proxies nearest the server; a list trusts those addresses and ranges. */
function trustProxySetting(setting: number | string[]): string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
// Fastify types its factories as Ajv's and fast-json-stringify's; it only calls them for a
// compiler of the same shape as zod's (route schema in, validate or serialise function out).
const ZOD_COMPILERS = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as CompilersFactory;

/** Builds the service without listening: tests use `inject`, server.ts calls `listen`. */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const htmlErrorPage = config.site
    ? (status: number) => siteErrorPage({ name: config.platformName, baseUrl: config.publicBaseUrl }, status)
    : undefined;
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    // The caller's x-request-id is kept only when short and plain: it is echoed and logged.
    requestIdHeader: false,
    genReqId: (request) => requestIdFrom(request.headers['x-request-id']),
    frameworkErrors: frameworkErrors(config.publicBaseUrl, htmlErrorPage),
    clientErrorHandler: clientErrorHandler(config.publicBaseUrl),
    // One sampled line per request instead (http/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 64 * 1024,
    // While shutting down, requests already on open connections are still answered (with
    // `Connection: close`, see http/lifecycle.ts) rather than refused with a 503.
    return503OnClosing: false,
    // Without TRUST_PROXY, X-Forwarded-For is ignored: nobody picks their own rate-limit bucket.
    ...(config.trustProxy === undefined ? {} : { trustProxy: trustProxySetting(config.trustProxy) }),
    // Ignore a trailing slash and duplicate slashes rather than answering 404.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    // Every schema is zod's: Fastify's default compilers (Ajv, fast-json-stringify) are never
    // loaded, about 0.2 s of every start.
    schemaController: { compilersFactory: ZOD_COMPILERS },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.decorate('config', config);
  app.decorate('database', deps.database);
  app.decorate('clock', deps.clock ?? systemClock);
  const catalogue = await Catalogue.open(deps.database, urlBuilder(config.publicBaseUrl, config.urlTemplates), app.log);
  app.decorate('catalogue', catalogue);
  app.addHook('onClose', async () => catalogue.close());

  registerLifecycle(app);
  registerRequestLog(app, config.logSampleReads);
  await registerMetrics(app, config.metrics !== undefined, MCP_TOOL_NAMES);
  registerResponseHeaders(app, config.publicBaseUrl);
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    exposedHeaders: [
      'x-request-id',
      'retry-after',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'www-authenticate',
      'link',
      'etag',
    ],
    maxAge: 86_400,
    // A bare OPTIONS (no preflight headers) gets an ordinary 204 with the CORS headers, not a
    // plain-text 400.
    strictPreflight: false,
  });
  registerErrorHandling(app, htmlErrorPage);
  // Before any route: the limiter attaches itself to each route as it is added.
  await registerRateLimit(app, config);
  await registerOpenApi(app, config.publicBaseUrl, config.platformName);

  await app.register(stagesRoutes);
  await app.register(eventsRoutes(config.events));
  await app.register(sessionRoute);
  await app.register(healthRoutes);
  await registerAuth(app);
  await app.register(adminPlugin);
  await app.register(discoveryRoutes);
  await app.register(docsRoutes);
  const articles = deps.articles ?? (await ArticleLibrary.load());
  await registerMcp(app, { catalogue, articles, clock: app.clock, platformName: config.platformName });
  registerServerCard(app);
  if (config.site) {
    const { renderSessionPage } = registerSite(app, { articles });
    // The form is on the site's session page, and a refused one is shown there again.
    await registerReservations(app, { renderSessionPage });
  }
  registerOpenApiRoute(app);

  return app;
}
