import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/unavailable.js';
import { problem, sendProblem } from '../http/problem.js';
import { RATE_LIMITED } from '../http/rate-limit.js';
import { parseClientMetadata } from './client-metadata.js';
import { findClient, insertClient } from './clients.js';
import { OAuthError, sendOAuthError } from './oauth-errors.js';
import { READ_SCOPE } from './policy.js';
import { CLIENT_ID_PATTERN, hashSecret, newClientId, newClientSecret, secretMatches } from './secrets.js';
import { audienceFor, checkGrant, invalidClient, parseTokenRequest } from './token-request.js';
import type { AuthUrls } from './urls.js';

const REGISTER_PATH = '/api/oauth/register';
const TOKEN_PATH = '/api/oauth/token';
const CLAIM_PATH = '/api/oauth/claim';
const AUTHORIZE_PATH = '/api/oauth/authorize';
const OAUTH_BODY_LIMIT = 16 * 1024;

function mediaType(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The OAuth error a Fastify error (body parsing, size, media type) becomes on this endpoint. */
function toOAuthError(err: FastifyError, request: FastifyRequest): OAuthError | undefined {
  const registration = request.routeOptions.url === REGISTER_PATH;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new OAuthError(413, 'invalid_request', `The request body is larger than ${OAUTH_BODY_LIMIT / 1024} KiB.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new OAuthError(
        415,
        'invalid_request',
        registration
          ? 'Content-Type must be application/json.'
          : 'Content-Type must be application/x-www-form-urlencoded.',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new OAuthError(
        400,
        registration ? 'invalid_client_metadata' : 'invalid_request',
        'The request body must be a JSON object of client metadata.',
      );
  }
  // RFC 6749 has no rate-limit error; temporarily_unavailable says "retry later", with Retry-After.
  if (err.code === RATE_LIMITED) return new OAuthError(429, 'temporarily_unavailable', err.message);
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return new OAuthError(status, 'invalid_request', 'The request is invalid.');
  return undefined;
}

/**
 * POST /api/oauth/register (RFC 7591), POST /api/oauth/token (RFC 6749 client_credentials) and
 * /api/oauth/claim. Encapsulated, with its own error handler, so that every failure here —
 * including body parsing, media type and size — answers in the OAuth format, never problem+json.
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

    app.setErrorHandler((err: FastifyError, request, reply) => {
      if (err instanceof OAuthError) return sendOAuthError(reply, err);
      if (isDatabaseUnavailable(err)) {
        // RFC 6749 §5.2 has no 503 error code; temporarily_unavailable (§4.1.2.1) says "retry later".
        request.log.warn({ err: err.message }, 'database unavailable; answered 503');
        reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS);
        return sendOAuthError(
          reply,
          new OAuthError(
            503,
            'temporarily_unavailable',
            'The service cannot reach its database right now. Retry shortly.',
          ),
        );
      }
      const mapped = toOAuthError(err, request);
      if (mapped) return sendOAuthError(reply, mapped);
      request.log.error({ err }, 'oauth request failed');
      return sendOAuthError(
        reply,
        new OAuthError(500, 'server_error', 'An unexpected error occurred. It has been logged.'),
      );
    });

    const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header('allow', 'POST');
      return sendOAuthError(reply, new OAuthError(405, 'invalid_request', 'Use POST.'));
    };

    // The metadata must name an authorization endpoint for MCP SDK clients to accept it (see
    // discovery/documents.ts), so it exists; it serves no flow, and says so in the OAuth format.
    // Nothing here is ever redirected: no client has a registered redirect URI, and RFC 6749
    // §4.1.2.1 forbids redirecting to one that cannot be checked. The error goes to whoever
    // sent the request, agent or browser.
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

    // Registration is open to every agent, but not to every web page: a page could otherwise
    // spend its visitors' addresses' registration budgets and mint clients from their browsers.
    // Browser origins on OAUTH_REGISTRATION_ORIGINS get CORS (preflight included); any other
    // Origin is refused before anything is written. The token endpoint stays open to every
    // origin: it needs a secret the page already holds, and no cookie or ambient credential.
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
      const metadata = parseClientMetadata(request.body);
      const clientId = newClientId();
      const clientSecret = newClientSecret();
      const now = app.clock.now();
      await insertClient(app.database.db, {
        clientId,
        secretHash: hashSecret(clientSecret),
        clientName: metadata.clientName,
        tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
        createdAt: now,
      });
      app.knownClients.remember(clientId);
      request.log.info({ clientId }, 'oauth client registered');
      return reply
        .code(201)
        .type('application/json; charset=utf-8')
        .send({
          client_id: clientId,
          client_secret: clientSecret,
          client_id_issued_at: Math.floor(now.getTime() / 1000),
          client_secret_expires_at: 0,
          client_name: metadata.clientName,
          // RFC 7591 §3.2.1 lets the server replace requested values; none is ever registered,
          // and MCP SDK clients refuse a registration answer without this field.
          redirect_uris: [],
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
          scope: READ_SCOPE,
        });
    });

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

    app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE'], url: REGISTER_PATH, handler: methodNotAllowed });
    app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE'], url: TOKEN_PATH, handler: methodNotAllowed });

    // spec.md §4.7: the claim flow (attaching an anonymous client to a human account) is not
    // needed until authenticated agent actions launch. Say so rather than pretend.
    app.route({
      method: ['GET', 'POST'],
      url: CLAIM_PATH,
      handler: async (request, reply) => {
        reply.header('link', `<${urls.documentation}>; rel="service-doc"`);
        return sendProblem(
          reply,
          problem(
            501,
            'claim_not_available',
            'Claiming an anonymous client is not available yet: it will only be needed once authenticated agent actions launch. Anonymous clients need no claim: register, get a token and call the API. See /llms.txt.',
            { instance: request.url.split('?')[0] },
          ),
        );
      },
    });
  };
}
