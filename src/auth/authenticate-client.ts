import type { FastifyInstance } from 'fastify';
import { spendJti } from './assertion-jtis.js';
import { isUrlClientId } from './cimd/client-id-url.js';
import { verifyClientAssertion } from './client-assertion.js';
import { type Client, lookupClient } from './clients.js';
import { secretMatches } from './secrets.js';
import { type ClientCredentials, invalidClient, invalidClientNoChallenge } from './token-request.js';
import type { AuthUrls } from './urls.js';

/**
 * The token endpoint's client authentication (RFC 6749 §2.3): a registered client's secret
 * (Basic or in the body), a signed assertion (private_key_jwt, RFC 7523 §2.2) from a registered
 * client that gave keys or a client known by its metadata document, or nothing at all from a
 * public client (`none`: only its grant, a code with its PKCE verifier or a refresh token, proves
 * anything; the token route refuses it client_credentials). Throws invalid_client saying why;
 * returns the client.
 */
export async function authenticateClient(
  app: FastifyInstance,
  urls: AuthUrls,
  credentials: ClientCredentials,
): Promise<Client> {
  const deps = { db: app.database.db, documents: app.clientDocuments };
  if (credentials.method === 'none') {
    // A public client proves nothing here; its grant (code + verifier, refresh token) does.
    const client = await lookupClient(deps, credentials.clientId);
    if (client?.tokenEndpointAuthMethod === 'none') return client;
    if (client?.tokenEndpointAuthMethod === 'private_key_jwt')
      throw invalidClientNoChallenge(
        'This client authenticates with private_key_jwt: send client_assertion_type and client_assertion.',
      );
    throw invalidClient('client_secret_post authentication needs both client_id and client_secret.');
  }
  if (credentials.method !== 'private_key_jwt') {
    if (isUrlClientId(credentials.clientId))
      throw invalidClient(
        'A client known by its metadata document (a URL client_id) cannot have a secret: authenticate with private_key_jwt (client_assertion).',
      );
    const client = await lookupClient(deps, credentials.clientId);
    // Always compare, even for an unknown client, so both failures take the same time.
    const stored = client?.source === 'registered' ? (client.secretHash ?? undefined) : undefined;
    if (!secretMatches(credentials.clientSecret, stored) || !client) {
      if (client?.tokenEndpointAuthMethod === 'private_key_jwt')
        throw invalidClient('This client authenticates with private_key_jwt (client_assertion), not a secret.');
      throw invalidClient('Client authentication failed: unknown client or wrong secret.');
    }
    return client;
  }
  const client = await lookupClient(deps, credentials.clientId);
  if (!client)
    throw invalidClientNoChallenge("Client authentication failed: the assertion's sub is not a registered client.");
  if (client.tokenEndpointAuthMethod !== 'private_key_jwt')
    throw invalidClientNoChallenge(
      client.source === 'document'
        ? 'This client\'s metadata document says token_endpoint_auth_method "none": it publishes no keys, so it cannot sign a client assertion.'
        : `This client was registered with ${client.tokenEndpointAuthMethod}: authenticate with its secret, not an assertion.`,
    );
  await verifyClientAssertion(credentials.assertion, client, {
    urls,
    documents: app.clientDocuments,
    now: app.clock.now(),
    spendJti: (clientId, jti, expiresAt) => spendJti(app.database.db, clientId, jti, expiresAt, app.clock.now()),
  });
  return client;
}
