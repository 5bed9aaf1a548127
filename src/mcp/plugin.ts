import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyContextConfig, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerBearerAuth } from '../auth/bearer.js';
import { NOT_RATE_LIMITED, RATE_LIMITED } from '../http/rate-limit.js';
import type { ToolContext } from './context.js';
import { answerCacheFor } from './fast-path.js';
import { checkBatch, checkParams, isInitializedNotification, requestIdOf } from './request-guards.js';
import { createMcpServer, MCP_KEPT_TOOLS } from './server.js';

export const MCP_PATH = '/api/mcp';
export const MCP_BODY_LIMIT = 256 * 1024;

// JSON-RPC "server error" range, as the SDK uses for transport-level refusals.
const TRANSPORT_ERROR = -32000;

function jsonRpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', error: { code, message }, id });
}

/**
 * Sends the SDK's web Response. A JSON answer is complete: copy it in one piece, which costs far
 * less than Fastify piping a web stream. Anything else (the 2026 revision's subscription stream)
 * is streamed as it comes.
 */
async function sendResponse(
  reply: FastifyReply,
  response: Response,
  keep?: (status: number, headers: [string, string][], body: string) => void,
): Promise<FastifyReply> {
  const type = response.headers.get('content-type') ?? '';
  if (response.body === null || !type.startsWith('application/json')) return reply.send(response);
  reply.code(response.status);
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers.push([name, value]);
  });
  for (const [name, value] of headers) reply.header(name, value);
  const body = await response.text();
  reply.send(body);
  // As sent: Fastify completes a JSON content type with its charset.
  keep?.(
    response.status,
    headers.map(([name]) => [name, String(reply.getHeader(name))]),
    body,
  );
  return reply;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Browsers always send Origin on a cross-site POST; a request carrying one that is not on the
 * allowlist is refused (DNS-rebinding protection). Non-browser clients send none and pass.
 */
function originGuard(allowed: readonly string[]) {
  const any = allowed.includes('*');
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined || any) return;
    let normalised: string | undefined;
    try {
      normalised = new URL(origin).origin;
    } catch {
      normalised = undefined;
    }
    if (normalised === undefined || !allowed.includes(normalised)) {
      // A refusal still costs the caller a request: refusals are not a free way to load the server.
      await request.server.chargeRateLimit(request, reply);
      return jsonRpcError(
        reply,
        403,
        TRANSPORT_ERROR,
        `Origin ${origin.slice(0, 200)} is not allowed to call this endpoint.`,
      );
    }
  };
}

/**
 * POST /api/mcp: a stateless MCP server answering JSON. Requests of the 2026-07-28 revision (an
 * envelope in `_meta`) go to the SDK's modern handler; older clients (`initialize` first) to a
 * per-request streamable-HTTP transport in JSON mode. A fresh McpServer serves each request, as
 * the SDK requires; the tool context behind it is shared.
 */
export async function registerMcp(app: FastifyInstance, ctx: ToolContext): Promise<void> {
  const onerror = (err: Error) => app.log.warn({ err }, 'MCP request failed');
  const modern = createMcpHandler(() => createMcpServer(ctx), { legacy: 'reject', responseMode: 'json', onerror });
  app.addHook('onClose', async () => modern.close());
  const endpoint = `${app.config.publicBaseUrl}${MCP_PATH}`;
  // Every tool is read-only (a test checks each one's annotations); all but check_availability are kept.
  const answers = answerCacheFor(app, ctx, MCP_KEPT_TOOLS);
  // CORS agrees with the Origin check: a listed browser origin gets the CORS headers (preflight
  // included), any other origin none, since its POST would be refused. Outside the scope below,
  // so that a preflight is neither refused nor counted.
  const allowed = app.config.mcpAllowedOrigins;
  // A request without Origin (any non-browser client) keeps the `*` every other route answers.
  const mcpCors = {
    cors: {
      origin: allowed.includes('*')
        ? '*'
        : (origin: string | undefined, done: (err: Error | null, allow: string | false) => void) =>
            done(null, origin === undefined ? '*' : allowed.includes(origin) ? origin : false),
    },
  };
  const originAllowed = (origin: string | undefined) =>
    origin === undefined || allowed.includes('*') || allowed.includes(origin);
  app.options(
    MCP_PATH,
    {
      config: { ...mcpCors, ...NOT_RATE_LIMITED },
      // @fastify/cors names the methods and headers to any origin; an origin it does not allow
      // gets none of its CORS headers at all.
      onSend: async (request, reply, payload) => {
        if (!originAllowed(request.headers.origin))
          for (const name of Object.keys(reply.getHeaders()))
            if (name.startsWith('access-control-')) reply.removeHeader(name);
        return payload;
      },
    },
    async (_request, reply) => reply.code(204).header('allow', 'POST, OPTIONS').send(),
  );

  await app.register(async (scope) => {
    // The SDK parses the body itself, so that malformed JSON gets a JSON-RPC -32700 and a wrong
    // content type a JSON-RPC 415 rather than Fastify's own errors.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MCP_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler((err: FastifyError, request, reply) => {
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return jsonRpcError(
          reply,
          413,
          TRANSPORT_ERROR,
          `Request body too large: the limit is ${MCP_BODY_LIMIT} bytes.`,
        );
      }
      if ((err.statusCode ?? 500) < 500)
        return jsonRpcError(reply, err.statusCode as number, TRANSPORT_ERROR, err.message);
      request.log.error({ err }, 'MCP request failed');
      return jsonRpcError(reply, 500, -32603, 'Internal error.');
    });
    scope.addHook('onRequest', originGuard(app.config.mcpAllowedOrigins));
    registerBearerAuth(scope);

    // Counted here rather than by the global hook, once the body is read: the handshake's
    // `notifications/initialized` costs nothing, and a 429 answers the request's own id.
    const chargeMcpRequest = async (request: FastifyRequest, reply: FastifyReply) => {
      const text = typeof request.body === 'string' ? request.body : '';
      if (isInitializedNotification(text)) return;
      try {
        await request.server.chargeRateLimit(request, reply);
      } catch (err) {
        if ((err as { code?: unknown }).code !== RATE_LIMITED) throw err;
        return jsonRpcError(reply, 429, TRANSPORT_ERROR, (err as Error).message, requestIdOf(text));
      }
    };

    const postOptions = { config: { ...mcpCors, ...NOT_RATE_LIMITED }, preHandler: chargeMcpRequest };

    scope.post(MCP_PATH, postOptions, async (request, reply) => {
      const text = typeof request.body === 'string' ? request.body : '';
      // Parse once and hand the SDK the result, rather than letting it re-read the body for the
      // classification and again for the transport. Unparsable text goes through as it is, for
      // the SDK to answer with -32700.
      const parsedBody = parseJson(text);
      // One HTTP request must not buy many calls: a batch counts each message against the budget
      // (the route's own hook counted the first), and is refused where the revision has none.
      if (Array.isArray(parsedBody) && parsedBody.length > 0) {
        const version = request.headers['mcp-protocol-version'];
        const batch = checkBatch(parsedBody, typeof version === 'string' ? version : undefined);
        if (typeof batch !== 'number') return jsonRpcError(reply, 400, batch.code, batch.message);
        await request.server.chargeRateLimit(request, reply, batch - 1);
      }
      // A client that declares the stateless revision (2026-07-28 or later) has no `initialize`.
      const declared = request.headers['mcp-protocol-version'];
      const stateless = typeof declared === 'string' && declared >= '2026-07-28';
      const badParams = checkParams(parsedBody, !stateless);
      if (badParams) return jsonRpcError(reply, 200, badParams.code, badParams.message, badParams.id);
      // The fast path (src/mcp/fast-path.ts): a successful read answer kept for this content.
      const fast = answers?.candidate(parsedBody, request.headers);
      const kept = fast && answers?.lookup(fast);
      if (kept) {
        // Only successful answers of read-only calls are kept: logged as reads are (sampled).
        request.answeredAsRead = true;
        return reply.code(kept.status).headers(kept.headers).send(kept.body);
      }
      const keep = fast && answers?.keeper(fast);

      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      // Answers are always JSON; a client that sends no Accept (plain curl) must not get a 406.
      headers.set('accept', 'application/json, text/event-stream');
      const webRequest = new Request(endpoint, { method: 'POST', headers, body: text });
      const legacy = await isLegacyRequest(webRequest, parsedBody);
      const identity = request.identity;
      const authInfo: AuthInfo | undefined =
        identity.kind === 'client'
          ? { token: '', clientId: identity.clientId, scopes: [identity.scope], extra: { identity } }
          : undefined;
      const options = { ...(parsedBody === undefined ? {} : { parsedBody }), ...(authInfo ? { authInfo } : {}) };

      if (legacy) {
        const server = createMcpServer(ctx);
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await server.connect(transport);
        try {
          return await sendResponse(reply, await transport.handleRequest(webRequest, options), keep);
        } finally {
          void transport.close();
          void server.close();
        }
      }
      return sendResponse(reply, await modern.fetch(webRequest, options), keep);
    });

    const notAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
      jsonRpcError(
        reply.header('allow', 'POST'),
        405,
        TRANSPORT_ERROR,
        'Method not allowed: this stateless MCP endpoint takes POST only.',
      );
    // Older clients probe with GET for a server-to-client stream; the probe costs nothing.
    scope.get(MCP_PATH, { config: { ...mcpCors, ...NOT_RATE_LIMITED } }, notAllowed);
    // Other methods are counted like any request (the CORS setting is outside Fastify's config type).
    const charged = mcpCors as FastifyContextConfig;
    scope.route({ method: ['DELETE', 'PUT', 'PATCH'], url: MCP_PATH, config: charged, handler: notAllowed });
  });
}
