import type { FastifyInstance } from 'fastify';
import { authUrls } from '../auth/urls.js';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';
import { AGENT_SKILLS_INDEX_PATH, agentSkill, SKILL_PATH } from './agent-skills.js';
import {
  API_CATALOG_CONTENT_TYPE,
  API_CATALOG_PATH,
  apiCatalog,
  authorizationServerMetadata,
  protectedResourceMetadata,
} from './documents.js';
import { llmsTxt } from './llms-txt.js';

const STATIC_CACHE = 'public, max-age=3600';
// Shorter: a new key must reach verifiers soon after a rotation.
const JWKS_CACHE = 'public, max-age=300';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The discovery documents (spec.md §4.6). Each one depends only on the configuration, so it is
 * serialised once here; only the JWKS follows the key set.
 */
export async function discoveryRoutes(app: FastifyInstance): Promise<void> {
  const { publicBaseUrl: base, platformName, demoCatalogue } = app.config;
  const urls = authUrls(base);
  const asMetadata = JSON.stringify(authorizationServerMetadata(urls, { claimAvailable: app.config.site }));
  const rootPrm = JSON.stringify(protectedResourceMetadata(urls, urls.rootResource, `${platformName} API`));
  const mcpPrm = JSON.stringify(protectedResourceMetadata(urls, urls.mcpResource, `${platformName} MCP server`));
  const catalogue = JSON.stringify(apiCatalog(base));
  const catalogueLink = `<${base}${API_CATALOG_PATH}>; rel="api-catalog"`;
  const llms = llmsTxt(base, platformName, urls, demoCatalogue, app.config.rateLimit);
  const skill = agentSkill(base, platformName);

  const serve = (path: string, type: string, body: string | Buffer, extra: Record<string, string> = {}) =>
    app.get(path, { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) =>
      reply.type(type).header('cache-control', STATIC_CACHE).headers(extra).send(body),
    );

  serve('/.well-known/oauth-authorization-server', JSON_TYPE, asMetadata);
  serve('/.well-known/oauth-protected-resource', JSON_TYPE, rootPrm);
  serve('/.well-known/oauth-protected-resource/api/mcp', JSON_TYPE, mcpPrm);
  // GET and (automatically) HEAD, both with the Link header (RFC 9727 §2).
  // A Buffer, so that Fastify sends the media type exactly as RFC 9727 §4.2 gives it (no charset).
  serve(API_CATALOG_PATH, API_CATALOG_CONTENT_TYPE, Buffer.from(catalogue), { link: catalogueLink });
  serve('/llms.txt', 'text/markdown; charset=utf-8', llms);
  serve(AGENT_SKILLS_INDEX_PATH, JSON_TYPE, skill.index);
  serve(SKILL_PATH, 'text/markdown; charset=utf-8', skill.markdown);

  app.get('/.well-known/jwks.json', { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) =>
    reply.type(JSON_TYPE).header('cache-control', JWKS_CACHE).send(JSON.stringify(app.accessTokens.keys.jwks())),
  );
}

/** The discovery door: /.well-known/* documents and /llms.txt. */
export async function registerDiscovery(app: FastifyInstance): Promise<void> {
  await app.register(discoveryRoutes);
}
