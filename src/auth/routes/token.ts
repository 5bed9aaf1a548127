import type { FastifyInstance } from 'fastify';
import { findClient } from '../clients.js';
import { OAuthError } from '../oauth-errors.js';
import { CLIENT_ID_PATTERN, secretMatches } from '../secrets.js';
import { audienceFor, checkGrant, invalidClient, parseTokenRequest } from '../token-request.js';
import type { AuthUrls } from '../urls.js';
import { mediaType, OAUTH_BODY_LIMIT, TOKEN_PATH } from './common.js';

/** POST /api/oauth/token (RFC 6749 client_credentials). Open to every origin: it needs a secret. */
export function tokenRoute(app: FastifyInstance, urls: AuthUrls): void {
  app.post(TOKEN_PATH, { bodyLimit: OAUTH_BODY_LIMIT }, async (request, reply) => {
    if (mediaType(request) !== 'application/x-www-form-urlencoded' || typeof request.body !== 'string')
      throw new OAuthError(415, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
    const { credentials, params } = parseTokenRequest(request.body, request.headers.authorization);
    // Both methods are accepted whatever was registered: the registered method is what the
    // client said it would use, and refusing the other gains nothing for a read-only scope.
    const client = CLIENT_ID_PATTERN.test(credentials.clientId)
      ? await findClient(app.database.db, credentials.clientId)
      : undefined;
    // Always compare, even for an unknown client, so both failures take the same time.
    if (!secretMatches(credentials.clientSecret, client?.secretHash) || !client)
      throw invalidClient('Client authentication failed: unknown client or wrong secret.');
    checkGrant(params);
    const audience = audienceFor(params, app.accessTokens.resources, urls.mcpResource);
    const token = await app.accessTokens.issue(client.clientId, audience);
    return reply.type('application/json; charset=utf-8').send({
      access_token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      scope: token.scope,
    });
  });
}
