import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, sendOAuthError } from '../oauth-errors.js';
import type { AuthUrls } from '../urls.js';
import { authorizeRoutes } from './authorize.js';
import { claimRoute } from './claim.js';
import { OAUTH_BODY_LIMIT, REGISTER_PATH, TOKEN_PATH } from './common.js';
import { handleOAuthErrors } from './error-handler.js';
import { registerRoute } from './register.js';
import { tokenRoute } from './token.js';

const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
  reply.header('allow', 'POST');
  return sendOAuthError(reply, new OAuthError(405, 'invalid_request', 'Use POST.'));
};

/**
 * POST /api/oauth/register (RFC 7591), POST /api/oauth/token (RFC 6749 client_credentials),
 * /api/oauth/authorize and /api/oauth/claim. Encapsulated, with its own error handler, so that
 * every failure here answers in the OAuth format.
 */
export function oauthRoutes(urls: AuthUrls) {
  return async (app: FastifyInstance): Promise<void> => {
    // Kept as the raw string: the handler must see repeated parameters to reject them.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: OAUTH_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    app.addHook('onSend', async (_request, reply) => {
      // RFC 6749 §5.1 and RFC 7591 §3.2.1: responses carrying credentials must not be cached.
      reply.header('cache-control', 'no-store');
      reply.header('pragma', 'no-cache');
    });
    handleOAuthErrors(app);

    authorizeRoutes(app, urls);
    registerRoute(app);
    tokenRoute(app, urls);
    app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE'], url: REGISTER_PATH, handler: methodNotAllowed });
    app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE'], url: TOKEN_PATH, handler: methodNotAllowed });
    claimRoute(app, urls);
  };
}
