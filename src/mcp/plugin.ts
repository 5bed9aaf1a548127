import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyContextConfig, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerBearerAuth } from '../auth/bearer.js';
import { type UpgradeHint, upgradeHint } from '../auth/upgrade-hint.js';
import { isAnonymousLimit, NOT_RATE_LIMITED, RATE_LIMITED } from '../http/rate-limit.js';
import type { ToolContext } from './context.js';
import { answerCacheFor } from './fast-path.js';
import { mcpPostHandler } from './handle-post.js';
import { registerIcons } from './icons.js';
import { jsonRpcError, MCP_BODY_LIMIT, MCP_PATH, TRANSPORT_ERROR } from './json-rpc.js';
import { registerListens } from './listen.js';
import { mcpCors, originGuard } from './origins.js';
import { isInitializedNotification, requestIdOf } from './request-guards.js';
import { createMcpServer, MCP_KEPT_TOOLS } from './server.js';
import { registerServerCard } from './server-card.js';

export { MCP_BODY_LIMIT, MCP_PATH };

/** Every failure on the endpoint is a JSON-RPC error, body size and parsing included. */
export function mcpErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return jsonRpcError(reply, 413, TRANSPORT_ERROR, `Request body too large: the limit is ${MCP_BODY_LIMIT} bytes.`);
  if ((err.statusCode ?? 500) < 500) return jsonRpcError(reply, err.statusCode as number, TRANSPORT_ERROR, err.message);
  request.log.error({ err }, 'MCP request failed');
  return jsonRpcError(reply, 500, -32603, 'Internal error.');
}

/**
 * Counted here rather than by the global hook, once the body is read: the handshake's
 * `notifications/initialized` costs nothing, and a 429 answers the request's own id. An anonymous
 * client out of budget is pointed to the protected resource metadata, where the higher tier
 * starts (auth/upgrade-hint.ts): in the challenge its SDK reads, and in the error's data.
 */
function chargeMcpRequest(hint: UpgradeHint) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const text = typeof request.body === 'string' ? request.body : '';
    if (isInitializedNotification(text)) return;
    try {
      await request.server.chargeRateLimit(request, reply);
    } catch (err) {
      if ((err as { code?: unknown }).code !== RATE_LIMITED) throw err;
      const message = (err as Error).message;
      if (!isAnonymousLimit(err)) return jsonRpcError(reply, 429, TRANSPORT_ERROR, message, requestIdOf(text));
      reply.header('www-authenticate', hint.mcpChallenge);
      const data = { resource_metadata: hint.resourceMetadata, www_authenticate: hint.mcpChallenge };
      return jsonRpcError(reply, 429, TRANSPORT_ERROR, message, requestIdOf(text), data);
    }
  };
}

const notAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
  jsonRpcError(
    reply.header('allow', 'POST'),
    405,
    TRANSPORT_ERROR,
    'Method not allowed: this stateless MCP endpoint takes POST only.',
  );

/**
 * POST /api/mcp: a stateless MCP server answering JSON (handle-post.ts), behind the Origin
 * check, bearer tokens and the rate limit; the tool context behind it is shared. And the
 * server card that describes it.
 */
export async function registerMcp(app: FastifyInstance, ctx: ToolContext): Promise<void> {
  const onerror = (err: Error) => app.log.warn({ err }, 'MCP request failed');
  const modern = createMcpHandler(() => createMcpServer(ctx, { subscribe: true }), {
    legacy: 'reject',
    responseMode: 'json',
    onerror,
  });
  app.addHook('onClose', async () => modern.close());
  const listens = registerListens(app, ctx, onerror);
  const endpoint = `${app.config.publicBaseUrl}${MCP_PATH}`;
  // Every tool is read-only (a test checks each one's annotations); all but check_availability are kept.
  const answers = answerCacheFor(app, ctx, MCP_KEPT_TOOLS);
  const cors = mcpCors(app, app.config.mcpAllowedOrigins);

  await app.register(async (scope) => {
    // The SDK parses the body itself, so that malformed JSON gets a JSON-RPC -32700 and a wrong
    // content type a JSON-RPC 415 rather than Fastify's own errors.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MCP_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler(mcpErrorHandler);
    scope.addHook('onRequest', originGuard(app.config.mcpAllowedOrigins));
    registerBearerAuth(scope);

    const hint = upgradeHint(app.config.publicBaseUrl);
    const postOptions = { config: { ...cors, ...NOT_RATE_LIMITED }, preHandler: chargeMcpRequest(hint) };
    scope.post(MCP_PATH, postOptions, mcpPostHandler({ ctx, modern, listens, endpoint, answers }));
    // Older clients probe with GET for a server-to-client stream; the probe costs nothing.
    scope.get(MCP_PATH, { config: { ...cors, ...NOT_RATE_LIMITED } }, notAllowed);
    // Other methods are counted like any request (the CORS setting is outside Fastify's config type).
    const charged = cors as FastifyContextConfig;
    scope.route({ method: ['DELETE', 'PUT', 'PATCH'], url: MCP_PATH, config: charged, handler: notAllowed });
  });
  registerServerCard(app);
  registerIcons(app);
}
