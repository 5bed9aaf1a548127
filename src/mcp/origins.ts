import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';
import { jsonRpcError, MCP_PATH, TRANSPORT_ERROR } from './json-rpc.js';

/**
 * Browsers always send Origin on a cross-site POST; a request carrying one that is not on the
 * allowlist is refused (DNS-rebinding protection). Non-browser clients send none and pass.
 */
export function originGuard(allowed: readonly string[]) {
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
 * CORS agrees with the Origin check: a listed browser origin gets the CORS headers (preflight
 * included), any other origin none, since its POST would be refused. A request without Origin
 * (any non-browser client) keeps the `*` every other route answers. Registers the preflight
 * route (outside the endpoint's scope, so that a preflight is neither refused nor counted) and
 * returns the route config the endpoint's own routes use.
 */
export function mcpCors(app: FastifyInstance, allowed: readonly string[]) {
  const config = {
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
      config: { ...config, ...NOT_RATE_LIMITED },
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
  return config;
}
