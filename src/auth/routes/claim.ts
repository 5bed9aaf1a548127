import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CLAIM_ID,
  CLAIM_LIFETIME_SECONDS,
  CLAIM_POLL_INTERVAL_SECONDS,
  claimPagePath,
} from '../../agent-claims/policy.js';
import { pollClaim } from '../../agent-claims/poll-claim.js';
import { AGENT_SCOPES, type AgentScope, isAgentScope, scopeString } from '../../agent-claims/scopes.js';
import { startClaim } from '../../agent-claims/start-claim.js';
import { InvalidTokenError, type VerifiedToken } from '../access-tokens.js';
import { isUrlClientId } from '../cimd/client-id-url.js';
import { OAuthError, sendOAuthError } from '../oauth-errors.js';
import { READ_SCOPE } from '../policy.js';
import type { AuthUrls } from '../urls.js';
import { CLAIM_PATH, mediaType, OAUTH_BODY_LIMIT } from './common.js';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The calling client, from its access token. No token is a malformed request (400), not a 401:
 * the service never answers 401 to a request that sent no token (issue 26); a token that fails
 * is a 401 with its RFC 6750 challenge, as everywhere.
 */
async function callingClient(app: FastifyInstance, request: FastifyRequest, urls: AuthUrls): Promise<VerifiedToken> {
  const header = request.headers.authorization;
  const howTo = `Register at ${urls.registrationEndpoint}, get a token at ${urls.tokenEndpoint} (grant_type=client_credentials) and send it as "Authorization: Bearer <token>".`;
  if (header === undefined)
    throw new OAuthError(
      400,
      'invalid_request',
      `A claim is made by a registered client: this endpoint needs its access token. ${howTo}`,
    );
  const token = BEARER.exec(header)?.[1];
  if (!token || header.length > 4200)
    throw new OAuthError(400, 'invalid_request', `The Authorization header must carry a Bearer access token. ${howTo}`);
  try {
    return await app.accessTokens.verify(token);
  } catch (err) {
    if (!(err instanceof InvalidTokenError)) throw err;
    const description = err.description.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, ' ');
    throw new OAuthError(
      401,
      'invalid_token',
      err.description,
      `Bearer error="invalid_token", error_description="${description}", resource_metadata="${urls.mcpResourceMetadata}"`,
    );
  }
}

/** The agent scopes a claim asks for: `scope` from a form or JSON body; none named → all of them. */
function askedScopes(request: FastifyRequest): AgentScope[] {
  const type = mediaType(request);
  let scope: unknown;
  if (type === 'application/x-www-form-urlencoded' && typeof request.body === 'string') {
    const params = new URLSearchParams(request.body);
    if (params.getAll('scope').length > 1)
      throw new OAuthError(400, 'invalid_request', 'The scope parameter must not be sent more than once.');
    scope = params.get('scope') ?? undefined;
  } else if (type === 'application/json') {
    if (typeof request.body !== 'object' || request.body === null || Array.isArray(request.body))
      throw new OAuthError(400, 'invalid_request', 'The request body must be a JSON object, e.g. {"scope": "alerts"}.');
    scope = (request.body as Record<string, unknown>).scope;
  } else if (type !== '' || (request.body !== undefined && request.body !== null && request.body !== '')) {
    throw new OAuthError(
      415,
      'invalid_request',
      'Content-Type must be application/x-www-form-urlencoded or application/json.',
    );
  }
  if (scope === undefined || scope === null) return [...AGENT_SCOPES];
  if (typeof scope !== 'string')
    throw new OAuthError(400, 'invalid_scope', 'scope must be a string of space-separated scopes, e.g. "alerts".');
  const words = [...new Set(scope.split(' ').filter((word) => word !== '' && word !== READ_SCOPE))];
  if (!words.every(isAgentScope))
    throw new OAuthError(
      400,
      'invalid_scope',
      `A claim asks the person for ${AGENT_SCOPES.map((s) => `"${s}"`).join(' and/or ')} ("read" needs no claim).`,
    );
  if (words.length === 0) return [...AGENT_SCOPES];
  return AGENT_SCOPES.filter((s) => words.includes(s));
}

/**
 * The claim (issue 26; spec.md §4.7), shaped like RFC 8628's device authorization: a registered
 * client, with its token, asks a person's consent to act for them. POST answers the page the
 * person opens (claim_url) and the code they type there (user_code); GET …/{claim_id} tells the
 * client how it went. The client keeps using client_credentials; its next tokens carry the person.
 */
export function claimRoute(app: FastifyInstance, urls: AuthUrls): void {
  const base = urls.issuer;
  const serviceDoc = `<${urls.documentation}>; rel="service-doc"`;
  app.post(CLAIM_PATH, { bodyLimit: OAUTH_BODY_LIMIT }, async (request, reply) => {
    reply.header('link', serviceDoc);
    const client = await callingClient(app, request, urls);
    if (isUrlClientId(client.clientId))
      throw new OAuthError(
        400,
        'invalid_request',
        `A claim ties a registered client to a person; this client is known by its metadata document (a URL client_id). Register at ${urls.registrationEndpoint} to use the claim.`,
      );
    if (!app.config.site)
      throw new OAuthError(
        501,
        'temporarily_unavailable',
        'This instance serves no pages for people (SITE is off), so no person could approve a claim here (agent_auth.claim_available is false).',
      );
    const scopes = askedScopes(request);
    const started = await startClaim(app.database.db, { clientId: client.clientId, scopes, now: app.clock.now() });
    if (started.kind === 'in-force')
      throw new OAuthError(
        409,
        'invalid_request',
        'A person has already claimed this client: it acts for one person at a time. Register another client to act for someone else; the person can withdraw this one in their area.',
      );
    request.log.info({ clientId: client.clientId }, 'agent claim started');
    return reply.type('application/json; charset=utf-8').send({
      claim_id: started.claimId,
      claim_url: `${base}${claimPagePath(started.claimId)}`,
      user_code: started.userCode,
      expires_in: CLAIM_LIFETIME_SECONDS,
      interval: CLAIM_POLL_INTERVAL_SECONDS,
      scope: scopeString(scopes),
      status_uri: `${base}${CLAIM_PATH}/${started.claimId}`,
    });
  });

  app.get(`${CLAIM_PATH}/:claimId`, async (request, reply) => {
    reply.header('link', serviceDoc);
    const client = await callingClient(app, request, urls);
    const { claimId } = request.params as { claimId: string };
    const polled = CLAIM_ID.test(claimId)
      ? await pollClaim(app.database.db, claimId, client.clientId, app.clock.now())
      : ({ kind: 'unknown' } as const);
    if (polled.kind === 'unknown')
      throw new OAuthError(404, 'invalid_request', 'This client started no claim with this id.');
    if (polled.kind === 'slow-down')
      throw new OAuthError(
        400,
        'slow_down',
        `Poll at most every ${CLAIM_POLL_INTERVAL_SECONDS} seconds (the claim's interval).`,
      );
    return reply.type('application/json; charset=utf-8').send({
      claim_id: claimId,
      status: polled.state,
      ...(polled.state === 'approved' ? { scope: scopeString(polled.scopes) } : {}),
    });
  });

  const notAllowed = (allow: string) => async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', allow);
    return sendOAuthError(reply, new OAuthError(405, 'invalid_request', `Use ${allow}.`));
  };
  app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE'], url: CLAIM_PATH, handler: notAllowed('POST') });
  app.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url: `${CLAIM_PATH}/:claimId`, handler: notAllowed('GET') });
}
