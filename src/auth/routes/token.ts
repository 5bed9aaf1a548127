import type { FastifyInstance } from 'fastify';
import { claimOfClient } from '../../agent-claims/claim-in-force.js';
import { scopeString } from '../../agent-claims/scopes.js';
import { authenticateClient } from '../authenticate-client.js';
import { OAuthError } from '../oauth-errors.js';
import { audienceFor, checkGrant, parseTokenRequest } from '../token-request.js';
import type { AuthUrls } from '../urls.js';
import { mediaType, OAUTH_BODY_LIMIT, TOKEN_PATH } from './common.js';

/** POST /api/oauth/token (RFC 6749 client_credentials). Open to every origin: it needs a secret or a signed assertion. */
export function tokenRoute(app: FastifyInstance, urls: AuthUrls): void {
  app.post(TOKEN_PATH, { bodyLimit: OAUTH_BODY_LIMIT }, async (request, reply) => {
    if (mediaType(request) !== 'application/x-www-form-urlencoded' || typeof request.body !== 'string')
      throw new OAuthError(415, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
    const { credentials, params } = parseTokenRequest(request.body, request.headers.authorization);
    // Both secret methods are accepted whatever was registered: the registered method is what the
    // client said it would use, and refusing the other gains nothing for a read-only scope.
    const client = await authenticateClient(app, urls, credentials);
    const asked = checkGrant(params);
    if (client.source === 'document' && !client.grantTypes.includes('client_credentials'))
      throw new OAuthError(
        400,
        'unauthorized_client',
        "This client's metadata document does not list client_credentials in grant_types.",
      );
    const audience = audienceFor(params, app.accessTokens.resources, urls.mcpResource);
    // A client a person claimed gets tokens that name the person (pairwise `sub`) and the claim;
    // `hold` and `alerts` only when asked for and granted. No scope asked: "read", as ever.
    const claim = await claimOfClient(app.database.db, client.clientId);
    const refused = asked.filter((scope) => !claim?.scopes.includes(scope));
    if (refused.length > 0)
      throw new OAuthError(
        400,
        'invalid_scope',
        claim
          ? `The person who claimed this client did not grant ${refused.join(' and ')}. Start a new claim after they withdraw this one, or ask only for what they granted (${scopeString(claim.scopes)}).`
          : `"${refused.join(' ')}" needs a person's consent: POST ${urls.claimEndpoint} with this client's token, and have the person approve it. Until then the only scope is "read".`,
      );
    const token = await app.accessTokens.issue(client.clientId, audience, {
      scope: scopeString(asked),
      ...(claim ? { claim: { claimId: claim.claimId, subject: claim.subject } } : {}),
    });
    return reply.type('application/json; charset=utf-8').send({
      access_token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      scope: token.scope,
    });
  });
}
