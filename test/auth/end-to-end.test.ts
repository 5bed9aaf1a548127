import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Identity } from '../../src/auth/identity.js';
import { testConfig } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';

let db: TestDatabase;
let app: FastifyInstance;
let base: string;
// What the MCP endpoint saw, request by request: the identity the rate limiter will key on.
const mcpIdentities: Identity[] = [];
// oauth4webapi insists on https unless told that this loopback server is fine.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  db = await openTestDatabase();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await buildApp(testConfig({ PUBLIC_BASE_URL: base }), { database: db.database, logger: false });
  app.addHook('onResponse', async (request) => {
    if (request.url.startsWith('/api/mcp')) mcpIdentities.push(request.identity);
  });
  await app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await app.close();
  await db.dispose();
});

async function mcpClient(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/api/mcp', base), { requestInit: { headers } }));
  return client;
}

describe('a strict OAuth client, given only the base URL', () => {
  it('discovers, registers, gets tokens both ways, validates them and calls MCP in the authenticated tier', async () => {
    // 1. Protected resource metadata for the MCP endpoint (RFC 9728, path-inserted form).
    const resource = new URL('/api/mcp', base);
    const rs = await oauth.processResourceDiscoveryResponse(
      resource,
      await oauth.resourceDiscoveryRequest(resource, insecure),
    );
    expect(rs.bearer_methods_supported).toEqual(['header']);
    const issuer = new URL(rs.authorization_servers![0]!);

    // 2. Authorization server metadata (RFC 8414); the issuer must match exactly.
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    expect(as.grant_types_supported?.[0]).toBe('client_credentials');

    // 3. Dynamic registration (RFC 7591).
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'e2e agent',
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
        insecure,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id };
    const secret = registered.client_secret as string;
    expect(registered.client_secret_expires_at).toBe(0);

    // 4. client_credentials, with HTTP Basic and then with client_secret_post.
    const tokens: string[] = [];
    for (const auth of [oauth.ClientSecretBasic(secret), oauth.ClientSecretPost(secret)]) {
      const response = await oauth.processClientCredentialsResponse(
        as,
        client,
        await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'read' }, insecure),
      );
      expect(response.token_type).toBe('bearer'); // oauth4webapi lower-cases it
      expect(response.expires_in).toBe(3600);
      expect(response.scope).toBe('read');
      tokens.push(response.access_token);
    }

    // 5. Validate each as a resource server would: RFC 9068, keys from jwks_uri.
    for (const token of tokens) {
      const claims = await oauth.validateJwtAccessToken(
        as,
        new Request(resource, { headers: { authorization: `Bearer ${token}` } }),
        resource.href,
        insecure,
      );
      expect(claims).toMatchObject({ iss: base, client_id: client.client_id, sub: client.client_id, scope: 'read' });
    }

    // 6. Call the MCP endpoint with the token: the request is served as the client.
    mcpIdentities.length = 0;
    const mcp = await mcpClient({ authorization: `Bearer ${tokens[0]}` });
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).toContain('search_stages');
      const result = await mcp.callTool({ name: 'search_stages', arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
    expect(mcpIdentities.length).toBeGreaterThan(0);
    for (const identity of mcpIdentities)
      expect(identity).toEqual({ kind: 'client', clientId: client.client_id, scope: 'read', scopes: ['read'] });
  });

  it('serves MCP anonymously without a token', async () => {
    mcpIdentities.length = 0;
    const mcp = await mcpClient({});
    try {
      expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await mcp.close();
    }
    expect(mcpIdentities.every((i) => i.kind === 'anonymous')).toBe(true);
  });

  it('refuses a bad token on MCP with a challenge a client can follow to the metadata', async () => {
    // oauth4webapi's own resource request parses the WWW-Authenticate challenge (RFC 6750, RFC 9728).
    const error = await oauth
      .protectedResourceRequest(
        'not.a.token',
        'POST',
        new URL('/api/mcp', base),
        new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        insecure,
      )
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challengeError = error as oauth.WWWAuthenticateChallengeError;
    expect(challengeError.status).toBe(401);
    expect(await challengeError.response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });
    const [challenge] = challengeError.cause;
    expect(challenge?.scheme).toBe('bearer');
    expect(challenge?.parameters.error).toBe('invalid_token');
    const metadataUrl = challenge?.parameters.resource_metadata;
    expect(metadataUrl).toBe(`${base}/.well-known/oauth-protected-resource/api/mcp`);
    const prm = await (await fetch(metadataUrl!)).json();
    expect(prm.resource).toBe(`${base}/api/mcp`);
  });
});
