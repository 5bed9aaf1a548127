import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, sendOAuthError } from '../oauth-errors.js';
import type { AuthUrls } from '../urls.js';
import { AUTHORIZE_PATH, OAUTH_BODY_LIMIT } from './common.js';

/**
 * The metadata must name an authorization endpoint for MCP SDK clients to accept it (see
 * discovery/documents.ts), so it exists; it serves no flow, and says so in the OAuth format.
 * Nothing here is ever redirected: no client has a registered redirect URI, and RFC 6749
 * §4.1.2.1 forbids redirecting to one that cannot be checked. The error goes to whoever sent
 * the request, agent or browser.
 */
export function authorizeRoutes(app: FastifyInstance, urls: AuthUrls): void {
  const noFlow = `This authorization server serves no response_type (response_types_supported is empty): there is no login, consent or redirect. Programs get an access token directly: register at ${urls.registrationEndpoint}, then POST grant_type=client_credentials to ${urls.tokenEndpoint}. See ${urls.documentation}.`;
  const authorize = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const params = new URLSearchParams(
      request.method === 'POST' && typeof request.body === 'string' ? request.body : query,
    );
    const types = params.getAll('response_type');
    reply.header('link', `<${urls.documentation}>; rel="service-doc"`);
    if (types.length === 0 || types[0] === '')
      throw new OAuthError(400, 'invalid_request', `response_type is required. ${noFlow}`);
    if (types.length > 1)
      throw new OAuthError(400, 'invalid_request', `response_type must not be sent more than once. ${noFlow}`);
    throw new OAuthError(400, 'unsupported_response_type', noFlow);
  };
  // RFC 6749 §3.1: an authorization endpoint takes GET, and may take POST.
  app.route({ method: ['GET', 'POST'], url: AUTHORIZE_PATH, bodyLimit: OAUTH_BODY_LIMIT, handler: authorize });
  app.route({
    method: ['PUT', 'PATCH', 'DELETE'],
    url: AUTHORIZE_PATH,
    handler: async (_request, reply) => {
      reply.header('allow', 'GET, HEAD, POST');
      return sendOAuthError(reply, new OAuthError(405, 'invalid_request', 'Use GET or POST.'));
    },
  });
}
