import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LruCache, stringBytes } from '../core/lru-cache.js';
import { problem, sendProblem } from '../http/problem.js';
import { addressBucket } from '../http/rate-limit.js';
import { InvalidTokenError } from './access-tokens.js';
import { ANONYMOUS } from './identity.js';
import { decorateIdentity } from './plugin.js';
import { authUrls } from './urls.js';

// RFC 6750 §2.1: b64token. Longer than any token we issue by a wide margin.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_TOKEN_LENGTH = 4096;
// About ten thousand addresses: what a flood from many addresses can make it hold.
const SPENT_ADDRESSES_BYTES = 1024 * 1024;

/** JSON-RPC error code for an unauthenticated request (implementation-defined server error range). */
export const JSONRPC_UNAUTHORIZED = -32001;

/** How a door answers a refused token: a JSON-RPC error (MCP), or problem+json (the REST routes). */
export type RefusalFormat = 'json-rpc' | 'problem';

function refuse(
  reply: FastifyReply,
  format: RefusalFormat,
  resourceMetadata: string,
  text: string,
  renewScope?: string,
): FastifyReply {
  // A quoted-string in the challenge: no quote, backslash or non-ASCII (RFC 6750 §3).
  const description = text.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, ' ');
  // An expired claimed token names its scopes, which the SDKs then ask again (see InvalidTokenError).
  const scope = renewScope ? `, scope="${renewScope}"` : '';
  reply
    .code(401)
    .header(
      'www-authenticate',
      `Bearer error="invalid_token", error_description="${description}"${scope}, resource_metadata="${resourceMetadata}"`,
    )
    .header('cache-control', 'no-store');
  // In the format of its door: a JSON-RPC error on the MCP endpoint, problem+json on the REST routes.
  if (format === 'problem')
    return sendProblem(
      reply,
      problem(401, 'invalid_token', description, { instance: reply.request.url.split('?')[0] ?? '' }),
    );
  return reply
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', error: { code: JSONRPC_UNAUTHORIZED, message: description }, id: null });
}

/**
 * Sets `request.identity` for every request of `scope` (the MCP endpoint, the claimed agents' REST
 * routes; refusals in `format`): no Authorization
 * header → anonymous (rate-limited per IP); a valid access token → the client (rate-limited per
 * client_id). A presented credential that is not a valid token is refused with 401 and a
 * challenge pointing to the protected resource metadata (RFC 6750 §3, RFC 9728 §5.1), never
 * downgraded to anonymous: the client should know its token failed.
 */
export function registerBearerAuth(scope: FastifyInstance, format: RefusalFormat = 'json-rpc'): void {
  const resourceMetadata = authUrls(scope.config.publicBaseUrl).mcpResourceMetadata;
  decorateIdentity(scope);
  // Addresses whose anonymous budget was spent by refused tokens, until when. Their next token is
  // charged to the address before its signature is checked, so a flood of forged tokens costs a
  // counter increment each, not a signature verification.
  const spentUntil = new LruCache<string, number>(SPENT_ADDRESSES_BYTES, (address) => stringBytes(address) + 16);
  const refuseCounted = async (request: FastifyRequest, reply: FastifyReply, text: string, renewScope?: string) => {
    try {
      await scope.chargeRateLimit(request, reply);
    } catch (err) {
      spentUntil.set(addressBucket(request), Date.now() + Number(reply.getHeader('retry-after') ?? 1) * 1000);
      throw err;
    }
    return refuse(reply, format, resourceMetadata, text, renewScope);
  };
  scope.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    if (header === undefined) {
      request.identity = ANONYMOUS;
      return;
    }
    const address = addressBucket(request);
    const spent = spentUntil.get(address);
    if (spent !== undefined) {
      if (spent > Date.now()) await scope.chargeRateLimit(request, reply);
      spentUntil.delete(address);
    }
    if (header.length > MAX_TOKEN_LENGTH + 10) return refuseCounted(request, reply, 'The access token is malformed.');
    const match = BEARER.exec(header);
    if (!match?.[1])
      return refuseCounted(
        request,
        reply,
        /^Bearer\b/i.test(header)
          ? 'The access token is malformed.'
          : 'The Authorization header must carry a Bearer access token.',
      );
    try {
      const token = await scope.accessTokens.verify(match[1]);
      request.identity = {
        kind: 'client',
        clientId: token.clientId,
        scope: token.scope,
        scopes: token.scopes,
        ...(token.claim ? { claim: token.claim } : {}),
      };
    } catch (err) {
      if (err instanceof InvalidTokenError) return refuseCounted(request, reply, err.description, err.renewScope);
      throw err;
    }
  });
}
