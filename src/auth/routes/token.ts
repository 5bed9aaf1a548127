import type { FastifyInstance } from 'fastify';
import { claimOfClient } from '../../agent-claims/claim-in-force.js';
import { scopeString } from '../../agent-claims/scopes.js';
import { authenticateClient } from '../authenticate-client.js';
import { redeemCode } from '../authorization-code/redeem-code.js';
import { issueRefreshToken, spendRefreshToken } from '../authorization-code/refresh-tokens.js';
import type { Client } from '../clients.js';
import { OAuthError } from '../oauth-errors.js';
import {
  audienceFor,
  checkGrant,
  grantTypeOf,
  invalidClient,
  invalidClientNoChallenge,
  parseTokenRequest,
} from '../token-request.js';
import type { AuthUrls } from '../urls.js';
import { mediaType, OAUTH_BODY_LIMIT, TOKEN_PATH } from './common.js';

const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);

/**
 * POST /api/oauth/token: client_credentials (spec.md §4.5, unchanged), and for agent hosts
 * authorization_code (with PKCE) and refresh_token (rotated at each use), registered or known by
 * their metadata document. Open to every origin: it needs a secret or a signed assertion, or a
 * code and its verifier, or a refresh token.
 */
export function tokenRoute(app: FastifyInstance, urls: AuthUrls): void {
  const db = app.database.db;
  const ttlDays = app.config.oauth.refreshTokenTtlDays;

  /** A person's access token and a new refresh token, for an authorization-code grant. */
  const personTokens = async (
    client: Client,
    grant: { claimId: string; subject: string; scope: string; resources: string[] },
  ) => {
    const audience =
      grant.resources.length === 0
        ? urls.mcpResource
        : grant.resources.length === 1
          ? grant.resources[0]!
          : grant.resources;
    const token = await app.accessTokens.issue(client.clientId, audience, {
      scope: grant.scope,
      claim: { claimId: grant.claimId, subject: grant.subject },
    });
    const refreshToken = client.grantTypes.includes('refresh_token')
      ? await issueRefreshToken(db, {
          claimId: grant.claimId,
          clientId: client.clientId,
          scope: grant.scope,
          resources: grant.resources,
          ttlDays,
          now: app.clock.now(),
        })
      : undefined;
    return {
      access_token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      scope: token.scope,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
    };
  };

  app.post(TOKEN_PATH, { bodyLimit: OAUTH_BODY_LIMIT }, async (request, reply) => {
    if (mediaType(request) !== 'application/x-www-form-urlencoded' || typeof request.body !== 'string')
      throw new OAuthError(415, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
    const { credentials, params } = parseTokenRequest(request.body, request.headers.authorization);
    const client = await authenticateClient(app, urls, credentials);
    const grantType = grantTypeOf(params, client.grantTypes, client.source);
    const json = (body: unknown) => reply.type('application/json; charset=utf-8').send(body);
    const now = app.clock.now();

    if (grantType === 'authorization_code') {
      const code = params.get('code');
      if (!code) throw new OAuthError(400, 'invalid_request', 'code is required.');
      const redeemed = await redeemCode(db, {
        code: code.slice(0, 200),
        clientId: client.clientId,
        redirectUri: params.get('redirect_uri'),
        verifier: params.get('code_verifier'),
        now,
      });
      if (redeemed.kind === 'invalid') throw invalidGrant(redeemed.description);
      // RFC 8707 §2.2: a resource at the token request narrows what the authorization request named.
      const asked = audienceFor(
        params,
        redeemed.resources.length ? redeemed.resources : app.accessTokens.resources,
        '',
      );
      const resources = asked === '' ? redeemed.resources : typeof asked === 'string' ? [asked] : asked;
      return json(await personTokens(client, { ...redeemed, scope: redeemed.grantedScopes, resources }));
    }

    if (grantType === 'refresh_token') {
      const refreshToken = params.get('refresh_token');
      if (!refreshToken) throw new OAuthError(400, 'invalid_request', 'refresh_token is required.');
      const rotated = await spendRefreshToken(db, refreshToken.slice(0, 200), client.clientId, now);
      if (rotated.kind === 'invalid') throw invalidGrant(rotated.description);
      // RFC 6749 §6: a narrower scope may be asked, never a wider one; never more than granted now.
      const held = rotated.scope.split(' ').filter((s) => rotated.granted.includes(s));
      const words = (params.get('scope') ?? '').split(' ').filter((w) => w !== '');
      if (words.some((w) => !held.includes(w)))
        throw new OAuthError(
          400,
          'invalid_scope',
          `The refresh token's scope is "${held.join(' ')}": ask for no more.`,
        );
      const scope = words.length > 0 ? held.filter((s) => s === 'read' || words.includes(s)).join(' ') : held.join(' ');
      const asked = audienceFor(params, rotated.resources.length ? rotated.resources : app.accessTokens.resources, '');
      const resources = asked === '' ? rotated.resources : typeof asked === 'string' ? [asked] : asked;
      return json(await personTokens(client, { ...rotated, scope, resources }));
    }

    // client_credentials is the client's own grant: it must prove who it is.
    if (credentials.method === 'none')
      throw client.source === 'document'
        ? invalidClientNoChallenge(
            'client_credentials needs client authentication: this client\'s metadata document says token_endpoint_auth_method "none" (publish keys and use private_key_jwt).',
          )
        : invalidClient('client_secret_post authentication needs both client_id and client_secret.');
    const asked = checkGrant(params);
    const audience = audienceFor(params, app.accessTokens.resources, urls.mcpResource);
    // A client a person claimed gets tokens that name the person (pairwise `sub`) and the claim;
    // `hold` and `alerts` only when asked for and granted. No scope asked: "read", as ever.
    const claim = await claimOfClient(db, client.clientId);
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
    return json({
      access_token: token.accessToken,
      token_type: 'Bearer',
      expires_in: token.expiresIn,
      scope: token.scope,
    });
  });
}
