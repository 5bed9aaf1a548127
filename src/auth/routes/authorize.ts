import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorizationErrorPage } from '../../agent-claims/authorization-page.js';
import { answerUri, parseAuthorizationRequest } from '../authorization-code/authorization-request.js';
import { consentPagePath } from '../authorization-code/policy.js';
import { createAuthorizationRequest } from '../authorization-code/requests.js';
import { lookupClient } from '../clients.js';
import { OAuthError, sendOAuthError } from '../oauth-errors.js';
import type { AuthUrls } from '../urls.js';
import { AUTHORIZE_PATH, OAUTH_BODY_LIMIT } from './common.js';

/** Whether the caller is a browser (a person reads the error) rather than a program. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\btext\/html\b/i.test(accept);
}

/**
 * /api/oauth/authorize (RFC 6749 §4.1.1, RFC 7636, RFC 8707, RFC 9207): agent hosts send the
 * person here to let them act for them. A valid request is kept and the browser sent on to the
 * page where the person signs in and answers (/agents/connecter). A request whose client or
 * redirect URI cannot be trusted is refused here, to whoever sent it (a page for a browser, the
 * OAuth JSON for a program), never redirected; any other error goes back to the client's
 * redirect URI with `error`, `state` and `iss`. Without the site (SITE=off) no person could sign
 * in, so there is no flow, and it says so.
 */
export function authorizeRoutes(app: FastifyInstance, urls: AuthUrls): void {
  const noFlow = `This instance serves no pages for people (SITE is off), so no person can sign in to authorize a client (response_types_supported is empty). Programs get an access token directly: register at ${urls.registrationEndpoint}, then POST grant_type=client_credentials to ${urls.tokenEndpoint}. See ${urls.documentation}.`;
  const site = app.config.site;
  const authorize = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const params = new URLSearchParams(
      request.method === 'POST' && typeof request.body === 'string' ? request.body : query,
    );
    reply.header('link', `<${urls.documentation}>; rel="service-doc"`);
    if (!site) {
      const types = params.getAll('response_type');
      if (types.length === 0 || types[0] === '')
        throw new OAuthError(400, 'invalid_request', `response_type is required. ${noFlow}`);
      if (types.length > 1)
        throw new OAuthError(400, 'invalid_request', `response_type must not be sent more than once. ${noFlow}`);
      throw new OAuthError(400, 'unsupported_response_type', noFlow);
    }
    const parsed = await parseAuthorizationRequest(
      params,
      (clientId) => lookupClient({ db: app.database.db, documents: app.clientDocuments }, clientId),
      app.accessTokens.resources,
    );
    if (parsed.kind === 'page-error') {
      if (!wantsHtml(request)) throw new OAuthError(400, 'invalid_request', parsed.description);
      return reply
        .code(400)
        .type('text/html; charset=utf-8')
        .header('x-robots-tag', 'noindex')
        .send(authorizationErrorPage(app.config, parsed.description));
    }
    if (parsed.kind === 'redirect-error')
      return reply.redirect(
        answerUri(parsed.redirectUri, urls.issuer, {
          error: parsed.error,
          error_description: parsed.description,
          state: parsed.state,
        }),
        303,
      );
    const id = await createAuthorizationRequest(app.database.db, parsed.request, app.clock.now());
    request.log.info({ clientId: parsed.request.client.clientId }, 'agent host authorization requested');
    return reply.redirect(`${urls.issuer}${consentPagePath(id)}`, 303);
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
