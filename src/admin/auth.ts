import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decorateIdentity } from '../auth/plugin.js';
import { problem, sendProblem } from '../http/problem.js';
import { parseApiKey, verifyApiKey } from './api-keys.js';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const REALM = 'realm="admin"';

/**
 * Every /api/admin/* request must carry an operator or partner API key (`Authorization: Bearer
 * sk_…`). No credential → 401 with a challenge; a wrong or revoked key → 401 invalid_token; an
 * agent's access token → 403: agent credentials never open the admin areas (spec §1, §5.8), so
 * trying again with a new one would not help. Refusals cost the caller's per-address budget, so
 * guessing keys is rate-limited like everything else; a valid key is then limited on its own tier.
 */
export function registerAdminAuth(scope: FastifyInstance): void {
  decorateIdentity(scope);
  const refuse = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: 401 | 403,
    code: string,
    detail: string,
    challenge?: string,
  ) => {
    await scope.chargeRateLimit(request, reply);
    if (challenge) reply.header('www-authenticate', challenge);
    return sendProblem(reply.header('cache-control', 'no-store'), problem(status, code, detail));
  };

  scope.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    if (header === undefined)
      return refuse(
        request,
        reply,
        401,
        'unauthenticated',
        'The admin API needs an operator or partner API key: Authorization: Bearer sk_…',
        `Bearer ${REALM}`,
      );
    const token = BEARER.exec(header)?.[1];
    if (!token)
      return refuse(
        request,
        reply,
        401,
        'invalid_credentials',
        'The Authorization header must be "Bearer" followed by an API key.',
        `Bearer ${REALM}, error="invalid_request"`,
      );
    if (!parseApiKey(token) && JWT.test(token)) {
      const agent = await scope.accessTokens.verify(token).then(
        () => true,
        () => false,
      );
      if (agent)
        return refuse(
          request,
          reply,
          403,
          'agent_credential_forbidden',
          'Agent access tokens give no access to the admin API. Use an operator or partner API key.',
        );
    }
    const key = await verifyApiKey(scope.database.db, token);
    if (!key)
      return refuse(
        request,
        reply,
        401,
        'invalid_credentials',
        'This API key is unknown or revoked.',
        `Bearer ${REALM}, error="invalid_token"`,
      );
    request.identity = { kind: 'apiKey', keyId: key.id, name: key.name, role: key.role, centreId: key.centreId };
    // Writes through the admin API name their key in the log (its id and name, never the key).
    request.logActor = { apiKey: { id: key.id, name: key.name } };
  });
}
