import type { FastifyInstance } from 'fastify';
import { isAuthorizationCodeClient, parseClientMetadata } from '../client-metadata.js';
import { insertClient } from '../clients.js';
import { OAuthError } from '../oauth-errors.js';
import { hashSecret, newClientId, newClientSecret } from '../secrets.js';
import { mediaType, OAUTH_BODY_LIMIT, REGISTER_PATH } from './common.js';

/**
 * POST /api/oauth/register (RFC 7591). Registration is open to every agent, but not to every web
 * page: a page could otherwise spend its visitors' addresses' registration budgets and mint
 * clients from their browsers. Browser origins on OAUTH_REGISTRATION_ORIGINS get CORS (preflight
 * included); any other Origin is refused before anything is written.
 */
export function registerRoute(app: FastifyInstance): void {
  const registrationOrigins = app.config.oauthRegistrationOrigins;
  const anyOrigin = registrationOrigins.includes('*');
  const registrationCors = { cors: { origin: anyOrigin ? '*' : registrationOrigins } };
  const originAllowed = (origin: string | undefined) =>
    origin === undefined || anyOrigin || registrationOrigins.includes(origin);
  app.options(REGISTER_PATH, { config: registrationCors }, async (_request, reply) =>
    reply.code(204).header('allow', 'POST, OPTIONS').send(),
  );

  app.post(REGISTER_PATH, { bodyLimit: OAUTH_BODY_LIMIT, config: registrationCors }, async (request, reply) => {
    if (!originAllowed(request.headers.origin))
      throw new OAuthError(
        403,
        'invalid_request',
        'Client registration from this browser origin is not allowed; register from your own server or agent.',
      );
    if (mediaType(request) !== 'application/json')
      throw new OAuthError(415, 'invalid_request', 'Content-Type must be application/json.');
    const metadata = parseClientMetadata(request.body, app.config.clientDocuments);
    const clientId = newClientId();
    // A private_key_jwt client authenticates with its keys, a public client (an agent host:
    // token_endpoint_auth_method none) with nothing but its grant: neither is given a secret.
    const clientSecret =
      metadata.tokenEndpointAuthMethod === 'private_key_jwt' || metadata.tokenEndpointAuthMethod === 'none'
        ? undefined
        : newClientSecret();
    const now = app.clock.now();
    await insertClient(app.database.db, {
      clientId,
      secretHash: clientSecret === undefined ? null : hashSecret(clientSecret),
      clientName: metadata.clientName,
      tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
      ...(metadata.keys ? { keys: metadata.keys } : {}),
      grantTypes: metadata.grantTypes,
      redirectUris: metadata.redirectUris,
      createdAt: now,
    });
    app.knownClients.remember(clientId);
    request.log.info({ clientId }, 'oauth client registered');
    const secret = clientSecret === undefined ? {} : { client_secret: clientSecret };
    const secretExpiry = clientSecret === undefined ? {} : { client_secret_expires_at: 0 };
    const keys = {
      ...(metadata.keys && 'jwks' in metadata.keys ? { jwks: metadata.keys.jwks } : {}),
      ...(metadata.keys && 'jwksUri' in metadata.keys ? { jwks_uri: metadata.keys.jwksUri } : {}),
    };
    const issuedAt = Math.floor(now.getTime() / 1000);
    // The metadata registered, echoed (RFC 7591 §3.2.1). A program (spec.md §4.4) has no redirect URI,
    // only client_credentials and `read`; MCP SDK clients refuse an answer without redirect_uris, so
    // it is there, empty. Only an agent host (the authorization code) has a response type.
    return reply
      .code(201)
      .type('application/json; charset=utf-8')
      .send({
        client_id: clientId,
        ...secret,
        client_id_issued_at: issuedAt,
        ...secretExpiry,
        client_name: metadata.clientName,
        redirect_uris: metadata.redirectUris,
        grant_types: metadata.grantTypes,
        ...(isAuthorizationCodeClient(metadata) ? { response_types: ['code'] } : {}),
        token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
        ...keys,
        scope: metadata.scope,
      });
  });
}
