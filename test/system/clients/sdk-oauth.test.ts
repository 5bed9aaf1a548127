import * as v2 from '@modelcontextprotocol/client';
import * as v1Auth from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider as V1ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningApp, listeningApp } from '../../helpers/listening-app.js';

/*
 * The official TypeScript MCP SDKs, 1.x (@modelcontextprotocol/sdk) and 2.x
 * (@modelcontextprotocol/client), with their own OAuth code: discovery (protected resource
 * metadata, then authorization server metadata, each parsed by the SDK's schema), dynamic
 * registration, the client_credentials token request of ClientCredentialsProvider, and the
 * transport's reaction to a 401 (read the challenge, get a new token, send again).
 */

interface AgentSession {
  listToolNames(): Promise<string[]>;
  search(args: Record<string, unknown>): Promise<{ isError?: boolean; structuredContent?: unknown }>;
  close(): Promise<void>;
}

interface TokenHolder {
  accessToken(): string | undefined;
  /** What a client restarting with a stored token it cannot know is stale would hold. */
  holdToken(token: string): void;
}

interface Sdk {
  name: string;
  discover(mcpUrl: URL): Promise<{ authorizationServerUrl: string; metadata: unknown }>;
  register(authorizationServerUrl: string, metadata: unknown): Promise<{ client_id: string; client_secret: string }>;
  provider(clientId: string, clientSecret: string, issuer: string): TokenHolder;
  authorize(provider: TokenHolder, mcpUrl: URL): Promise<string>;
  connect(provider: TokenHolder, mcpUrl: URL): Promise<AgentSession>;
}

const clientMetadata = {
  client_name: 'sdk agent',
  redirect_uris: [],
  grant_types: ['client_credentials'],
  token_endpoint_auth_method: 'client_secret_basic',
};

function holder<P extends { tokens(): { access_token: string } | undefined; saveTokens(t: never): void }>(
  provider: P,
  issuer: string,
): P & TokenHolder {
  return Object.assign(provider, {
    accessToken: () => provider.tokens()?.access_token,
    holdToken: (token: string) =>
      provider.saveTokens({ access_token: token, token_type: 'Bearer', issuer } as unknown as never),
  });
}

const sdk1: Sdk = {
  name: '@modelcontextprotocol/sdk 1.x',
  async discover(mcpUrl) {
    const info = await v1Auth.discoverOAuthServerInfo(mcpUrl);
    return { authorizationServerUrl: info.authorizationServerUrl, metadata: info.authorizationServerMetadata };
  },
  async register(authorizationServerUrl, metadata) {
    const info = await v1Auth.registerClient(authorizationServerUrl, {
      metadata: metadata as Parameters<typeof v1Auth.registerClient>[1]['metadata'],
      clientMetadata,
    });
    return { client_id: info.client_id, client_secret: info.client_secret! };
  },
  provider: (clientId, clientSecret, issuer) =>
    holder(new V1ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer }), issuer),
  authorize: (provider, mcpUrl) =>
    v1Auth.auth(provider as unknown as V1ClientCredentialsProvider, { serverUrl: mcpUrl }),
  async connect(provider, mcpUrl) {
    const client = new V1Client({ name: 'sdk1-agent', version: '1.0.0' });
    await client.connect(new V1Transport(mcpUrl, { authProvider: provider as unknown as V1ClientCredentialsProvider }));
    return {
      listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
      search: async (args) =>
        (await client.callTool({ name: 'search_stages', arguments: args })) as {
          isError?: boolean;
          structuredContent?: unknown;
        },
      close: () => client.close(),
    };
  },
};

const sdk2: Sdk = {
  name: '@modelcontextprotocol/client 2.x',
  async discover(mcpUrl) {
    const info = await v2.discoverOAuthServerInfo(mcpUrl);
    return { authorizationServerUrl: String(info.authorizationServerUrl), metadata: info.authorizationServerMetadata };
  },
  async register(authorizationServerUrl, metadata) {
    const info = await v2.registerClient(authorizationServerUrl, {
      metadata: metadata as Parameters<typeof v2.registerClient>[1]['metadata'],
      clientMetadata,
    });
    return { client_id: info.client_id, client_secret: info.client_secret! };
  },
  provider: (clientId, clientSecret, issuer) =>
    holder(new v2.ClientCredentialsProvider({ clientId, clientSecret, expectedIssuer: issuer }), issuer),
  authorize: (provider, mcpUrl) => v2.auth(provider as unknown as v2.ClientCredentialsProvider, { serverUrl: mcpUrl }),
  async connect(provider, mcpUrl) {
    const client = new v2.Client({ name: 'sdk2-agent', version: '1.0.0' });
    await client.connect(
      new v2.StreamableHTTPClientTransport(mcpUrl, {
        authProvider: provider as unknown as v2.ClientCredentialsProvider,
      }),
    );
    return {
      listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
      search: async (args) =>
        (await client.callTool({ name: 'search_stages', arguments: args })) as {
          isError?: boolean;
          structuredContent?: unknown;
        },
      close: () => client.close(),
    };
  },
};

let t: ListeningApp;
let now = Date.now();
const advance = (seconds: number) => {
  now += seconds * 1000;
  t.clock.set(new Date(now).toISOString());
};

beforeAll(async () => {
  // Today, so that the demo catalogue has upcoming sessions to find.
  t = await listeningApp(new Date(now).toISOString());
});
afterAll(() => t.close());

describe.each([sdk1, sdk2])('$name with its ClientCredentialsProvider', (sdk) => {
  let credentials: { client_id: string; client_secret: string };
  let provider: TokenHolder;
  let session: AgentSession;

  afterAll(() => session?.close());

  it('discovers the authorization server from the MCP endpoint and registers with the SDK’s own code', async () => {
    const { authorizationServerUrl, metadata } = await sdk.discover(t.mcpUrl);
    expect(authorizationServerUrl).toBe(t.base);
    expect(metadata).toMatchObject({
      issuer: t.base,
      token_endpoint: `${t.base}/api/oauth/token`,
      // client_credentials first: the grant these agents use (the browser flow's follow it).
      grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
    });
    credentials = await sdk.register(authorizationServerUrl, metadata);
    expect(credentials.client_id).toMatch(/\S/);
    expect(credentials.client_secret).toMatch(/\S/);
  });

  it('gets a token, then lists and calls tools in the authenticated tier', async () => {
    provider = sdk.provider(credentials.client_id, credentials.client_secret, t.base);
    expect(await sdk.authorize(provider, t.mcpUrl)).toBe('AUTHORIZED');
    expect(provider.accessToken()).toMatch(/^ey/);

    t.exchanges.length = 0;
    session = await sdk.connect(provider, t.mcpUrl);
    expect(await session.listToolNames()).toEqual(
      expect.arrayContaining(['search_stages', 'check_availability', 'get_centre']),
    );
    const result = await session.search({ dept: '69', limit: 3 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ object: 'list', count: 3 });

    const mcp = t.exchanges.filter((e) => e.path === '/api/mcp' && e.method === 'POST');
    expect(mcp.length).toBeGreaterThanOrEqual(3);
    for (const e of mcp) {
      expect(e.status).toBeLessThan(300);
      expect(e.identity).toEqual({ kind: 'client', clientId: credentials.client_id, scope: 'read', scopes: ['read'] });
    }
  });

  it('meets the 401 of an expired token, gets a new one and retries by itself', async () => {
    const before = provider.accessToken();
    advance(2 * 3600);
    t.exchanges.length = 0;

    const result = await session.search({ dept: '13', limit: 2 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ object: 'list', count: 2 });
    expect(provider.accessToken()).toMatch(/^ey/);
    expect(provider.accessToken()).not.toBe(before);

    // What went over the wire: refused, a token request, the same call again, served as the client.
    const seen = t.exchanges.map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(seen).toEqual(
      expect.arrayContaining(['POST /api/mcp 401', 'POST /api/oauth/token 200', 'POST /api/mcp 200']),
    );
    expect(seen.indexOf('POST /api/mcp 401')).toBeLessThan(seen.indexOf('POST /api/oauth/token 200'));
    expect(seen.lastIndexOf('POST /api/mcp 200')).toBeGreaterThan(seen.indexOf('POST /api/oauth/token 200'));
    expect(t.exchanges.at(-1)?.identity).toEqual({
      kind: 'client',
      clientId: credentials.client_id,
      scope: 'read',
      scopes: ['read'],
    });
  });

  it('connects with a stored token the server refuses, and replaces it on the 401', async () => {
    const restarted = sdk.provider(credentials.client_id, credentials.client_secret, t.base);
    restarted.holdToken('eyJhbGciOiJFUzI1NiJ9.e30.bm90LWEtc2lnbmF0dXJl');
    t.exchanges.length = 0;

    const again = await sdk.connect(restarted, t.mcpUrl);
    try {
      expect(await again.listToolNames()).toContain('search_stages');
    } finally {
      await again.close();
    }
    expect(restarted.accessToken()).toMatch(/^ey/);
    expect(restarted.accessToken()).not.toBe('eyJhbGciOiJFUzI1NiJ9.e30.bm90LWEtc2lnbmF0dXJl');
    const mcp = t.exchanges.filter((e) => e.path === '/api/mcp' && e.method === 'POST');
    expect(mcp[0]?.status).toBe(401);
    expect(mcp.at(-1)).toMatchObject({ status: 200, identity: { kind: 'client', clientId: credentials.client_id } });
  });
});
