import Fastify, { type FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { registerAccounts } from './accounts/plugin.js';
import { registerAdmin } from './admin/plugin.js';
import { watchRoutes } from './agent-alerts/routes.js';
import { registerClaimPages } from './agent-claims/approval-routes.js';
import { registerAuthorizationPages } from './agent-claims/authorization-routes.js';
import { registerHoldExpiry } from './agent-holds/expiry.js';
import { holdRoutes } from './agent-holds/routes.js';
import { registerEligibilityPage } from './agents/eligibility/page-route.js';
import { registerEligibilityApi } from './agents/eligibility/route.js';
import { registerAlerts } from './alerts/plugin.js';
import { ArticleLibrary } from './articles/articles.js';
import { registerAuth } from './auth/plugin.js';
import { upgradeHint } from './auth/upgrade-hint.js';
import { Catalogue } from './catalogue/catalogue.js';
import { registerCatalogueApi } from './catalogue/plugin.js';
import { urlBuilder } from './catalogue/read-model.js';
import { registerCentreArea } from './centre-area/plugin.js';
import { webhooksPath } from './centre-area/webhooks-page.js';
import type { Config } from './config.js';
import { type Clock, systemClock } from './core/clock.js';
import type { Database } from './db/connect.js';
import { registerOpenApi, registerOpenApiRoute } from './discovery/openapi.js';
import { registerDiscovery } from './discovery/routes.js';
import { registerDocs } from './docs/routes.js';
import { registerHealth } from './health/routes.js';
import { fastifyOptions, type LoggerOption } from './http/fastify-options.js';
import { registerHttp } from './http/plugin.js';
import { registerJobs } from './jobs/plugin.js';
import { registerMail } from './mail/plugin.js';
import { sendsMail } from './mail/transport.js';
import { registerMcp } from './mcp/plugin.js';
import { MCP_TOOL_NAMES } from './mcp/server.js';
import { registerOperatorArea } from './operator-area/plugin.js';
import { registerPeopleArea } from './people-area/plugin.js';
import { registerReservations } from './reservations/plugin.js';
import { registerSite } from './site/plugin.js';
import { siteErrorPage } from './web/error-page.js';
import { registerWebhooks } from './webhooks/plugin.js';

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
  logger?: LoggerOption;
  /**
   * Tests only: the certificate authorities (PEM) trusted, instead of the system's, when fetching
   * client metadata documents and key sets over https (a document served from a self-signed
   * certificate). Deliberately not a configuration variable: production cannot set it by mistake.
   */
  clientDocumentsCa?: string;
  /** A file where the catalogue is kept between runs of an embedded database (catalogue.ts's storedCopy). */
  catalogueCopy?: string;
}

/**
 * Builds the service without listening: tests use `inject`, server.ts calls `listen`. This
 * function is the table of contents: what every request shares, then each door in turn.
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const htmlErrorPage = config.site
    ? (status: number) => siteErrorPage({ name: config.platformName, baseUrl: config.publicBaseUrl }, status)
    : undefined;
  const app = Fastify(fastifyOptions(config, deps.logger, htmlErrorPage)).withTypeProvider<ZodTypeProvider>();

  // What every door reads: the configuration, the database, the clock and the catalogue.
  app.decorate('config', config);
  app.decorate('database', deps.database);
  app.decorate('clock', deps.clock ?? systemClock);
  const catalogue = await Catalogue.open(
    deps.database,
    urlBuilder(config.publicBaseUrl, config.urlTemplates),
    app.log,
    app.clock,
    deps.catalogueCopy === undefined ? {} : { storedCopy: deps.catalogueCopy },
  );
  app.decorate('catalogue', catalogue);
  app.addHook('onClose', async () => catalogue.close());
  const articles = deps.articles ?? (await ArticleLibrary.load());

  // What every request goes through, before any route.
  await registerHttp(app, {
    knownTools: MCP_TOOL_NAMES,
    htmlErrorPage,
    higherTier: upgradeHint(config.publicBaseUrl).higherTier,
  });
  // Background work: the durable jobs' worker, and the email outbox's sender on it.
  await registerJobs(app);
  registerMail(app);
  registerHoldExpiry(app); // an expired hold's place goes back on sale, whichever instance runs the job
  // The OpenAPI document collects the routes registered from here to registerOpenApiRoute.
  await registerOpenApi(app, config.publicBaseUrl, config.platformName);

  // The doors.
  await registerCatalogueApi(app); // GET /api/stages, /api/stages/{id}, /api/stages/events
  await app.register(watchRoutes); // /api/watches: a claimed agent's alerts for its person
  await app.register(holdRoutes); // /api/stages/{id}/holds, /api/holds/{id}: a place held for its person
  await registerHealth(app); // GET /api/health
  await registerEligibilityApi(app); // POST /api/eligibility
  await registerAuth(app, deps.clientDocumentsCa === undefined ? {} : { trustedCa: deps.clientDocumentsCa }); // /api/oauth/*, and bearer tokens for the doors that take them
  await registerAdmin(app); // /api/admin/*: operators and partner centres, API keys only
  // /api/admin/webhooks: partners' subscriptions; events and their deliveries (a disabling's email
  // names the centre's webhooks page when the site serves the centres' area).
  await registerWebhooks(app, config.site ? { pagePath: webhooksPath } : {});
  await registerDiscovery(app); // /.well-known/*, /llms.txt
  await registerDocs(app); // GET /docs
  await registerMcp(app, {
    catalogue,
    articles,
    clock: app.clock,
    platformName: config.platformName,
    publicBaseUrl: config.publicBaseUrl,
    db: app.database.db,
    sendsMail: sendsMail(config.mail),
    holdTtlSeconds: config.site ? config.holds.ttlSeconds : undefined,
  }); // POST /api/mcp
  if (config.site) {
    // The pages for people; the booking form is on the site's session page, and a refused one
    // is shown there again.
    const { renderSessionPage, guard } = registerSite(app, { articles });
    await registerReservations(app, { renderSessionPage, guard });
    await registerEligibilityPage(app, guard); // /peut-on-faire-un-stage
    // Signing in by emailed link, and the centres' area behind it (/connexion, /espace-centre).
    await registerAccounts(app);
    await registerCentreArea(app);
    await registerPeopleArea(app); // /mon-espace
    await registerClaimPages(app); // /agents/autoriser: a person answers an agent's claim
    await registerAuthorizationPages(app); // /agents/connecter: a person answers an agent host (authorization code)
    await registerAlerts(app, { guard }); // /alertes: "Prévenez-moi" on full sessions and searches
    await registerOperatorArea(app); // /administration
  }
  registerOpenApiRoute(app); // GET /openapi.json

  return app;
}
