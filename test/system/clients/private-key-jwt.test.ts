import * as v2 from '@modelcontextprotocol/client';
import * as v1Auth from '@modelcontextprotocol/sdk/client/auth.js';
import { PrivateKeyJwtProvider as V1PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientKey, clientKey } from '../../helpers/assertions.js';
import { type DocumentServer, documentServer } from '../../helpers/document-server.js';
import { type ListeningApp, listeningApp } from '../../helpers/listening-app.js';

/*
 * Clients nobody here wrote, authenticating with private_key_jwt as a client known by its
 * metadata document (the client_id is the document's URL, served by the client's loopback
 * server: CIMD_ALLOW_HTTP_LOOPBACK, a test configuration): the MCP SDKs' stock
 * PrivateKeyJwtProvider (1.x and 2.x: their own assertion, aud = the issuer) through their own
 * auth() and transport, and oauth4webapi's PrivateKeyJwt client authentication.
 *
 * The SDKs' clientMetadataUrl (their URL client id for the browser flow) insists on https, which
 * a loopback test server does not serve; the provider's clientId is used instead, as their
 * client_credentials path allows.
 */

let t: ListeningApp;
let server: DocumentServer;
let key: ClientKey;
let privateJwk: Awaited<ReturnType<typeof exportJWK>>;

function publish(name: string): string {
  return server.serve(`/${name}/client.json`, {
    body: {
      client_id: `${server.base}/${name}/client.json`,
      client_name: name,
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: `${server.base}/keys.json`,
    },
  });
}

beforeAll(async () => {
  server = await documentServer();
  key = await clientKey('ES256');
  privateJwk = { ...(await exportJWK(key.privateKey)), kid: key.kid, alg: 'ES256' };
  server.serve('/keys.json', { body: { keys: [key.publicJwk] } });
  // Now, so that the SDKs' assertions (signed with the real time) are current for the service.
  t = await listeningApp(new Date().toISOString(), { CIMD_ALLOW_HTTP_LOOPBACK: 'true' });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const sdks = [
  {
    name: '@modelcontextprotocol/sdk 1.x',
    async run(clientId: string) {
      const provider = new V1PrivateKeyJwtProvider({
        clientId,
        privateKey: privateJwk as Record<string, unknown>,
        algorithm: 'ES256',
        expectedIssuer: t.base,
      });
      expect(await v1Auth.auth(provider, { serverUrl: t.mcpUrl })).toBe('AUTHORIZED');
      const client = new V1Client({ name: 'sdk1-jwt-agent', version: '1.0.0' });
      await client.connect(new V1Transport(t.mcpUrl, { authProvider: provider }));
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      await client.close();
      return names;
    },
  },
  {
    name: '@modelcontextprotocol/client 2.x',
    async run(clientId: string) {
      const provider = new v2.PrivateKeyJwtProvider({
        clientId,
        privateKey: privateJwk as Record<string, unknown>,
        algorithm: 'ES256',
        expectedIssuer: t.base,
      });
      expect(await v2.auth(provider, { serverUrl: t.mcpUrl })).toBe('AUTHORIZED');
      const client = new v2.Client({ name: 'sdk2-jwt-agent', version: '1.0.0' });
      await client.connect(new v2.StreamableHTTPClientTransport(t.mcpUrl, { authProvider: provider }));
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      await client.close();
      return names;
    },
  },
];

describe.each(sdks)('$name PrivateKeyJwtProvider with a URL client_id', (sdk) => {
  it('sees client_id_metadata_document_supported, gets a token and calls the MCP server as that client', async () => {
    const clientId = publish(sdk.name.replace(/\W+/g, '-'));
    t.exchanges.length = 0;
    const names = await sdk.run(clientId);
    expect(names).toEqual(expect.arrayContaining(['search_stages', 'check_availability']));
    const token = t.exchanges.filter((e) => e.path === '/api/oauth/token');
    expect(token.map((e) => e.status)).toEqual([200]);
    const mcp = t.exchanges.filter((e) => e.path === '/api/mcp' && e.method === 'POST');
    expect(mcp.length).toBeGreaterThanOrEqual(2);
    for (const e of mcp) expect(e.identity).toMatchObject({ kind: 'client', clientId });
  });
});

describe('oauth4webapi with PrivateKeyJwt client authentication', () => {
  const insecure = { [oauth.allowInsecureRequests]: true } as const;

  it('discovers the metadata and gets a token with its own assertion; one signed with another key is refused (invalid_client, no Basic challenge)', async () => {
    const as = await oauth.processDiscoveryResponse(
      new URL(t.base),
      await oauth.discoveryRequest(new URL(t.base), { algorithm: 'oauth2', ...insecure }),
    );
    expect(as.client_id_metadata_document_supported).toBe(true);
    expect(as.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(as.token_endpoint_auth_signing_alg_values_supported).toContain('ES256');

    const client: oauth.Client = { client_id: publish('oauth4webapi') };
    const auth = oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.kid });
    const response = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'read' }, insecure),
    );
    expect(response).toMatchObject({ token_type: 'bearer', scope: 'read', expires_in: 3600 });

    // A wrong key: the server's invalid_client, as the library reports it.
    const stranger = await clientKey('ES256');
    const refused = oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.PrivateKeyJwt({ key: stranger.privateKey, kid: key.kid }),
        { scope: 'read' },
        insecure,
      ),
    );
    await expect(refused).rejects.toMatchObject({ error: 'invalid_client', status: 401 });
  });
});
