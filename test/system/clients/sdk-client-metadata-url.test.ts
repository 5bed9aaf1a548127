import * as v2 from '@modelcontextprotocol/client';
import * as v1Auth from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryOAuthClientProvider } from '@modelcontextprotocol/sdk/examples/client/simpleOAuthClientProvider.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approveInChromium,
  type CallbackListener,
  startCallbackListener,
} from '../../helpers/authorization-browser.js';
import { launchChromium } from '../../helpers/browser.js';
import { type DocumentServer, documentServer } from '../../helpers/document-server.js';
import { type ListeningApp, listeningApp } from '../../helpers/listening-app.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';
import { selfSignedCertificate } from '../../helpers/tls.js';

/*
 * The official MCP SDKs' OAuth code (1.x and 2.x) with `clientMetadataUrl` (issue 27, CIMD): the
 * host publishes its metadata document at an https URL and uses that URL as its client_id, with no
 * registration, then does the browser flow (PKCE, a person approving in Chromium), calls a tool for
 * the person, and refreshes when the token expires. The SDKs accept only an https URL there, so the
 * document is served over https from a self-signed certificate made for this test, which the
 * service trusts through buildApp's clientDocumentsCa (a dependency, not a configuration variable).
 * 1.x uses the SDK's stock InMemoryOAuthClientProvider (its fourth argument); 2.x ships no
 * provider, so the test implements the interface, as a host does.
 */

const PERSON = 'hote.cimd@example.org';

class HostProvider implements v2.OAuthClientProvider {
  private info: v2.StoredOAuthClientInformation | undefined;
  private stored: v2.StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  constructor(
    private readonly redirect: string,
    private readonly metadata: v2.OAuthClientMetadata,
    private readonly onRedirect: (url: URL) => void,
    readonly clientMetadataUrl: string,
  ) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return this.metadata;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: v2.StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: v2.StoredOAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.onRedirect(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
}

interface HostSession {
  callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; structuredContent?: unknown }>;
  close(): Promise<void>;
}

interface Sdk {
  name: string;
  provider(redirect: string, documentUrl: string, onRedirect: (url: URL) => void): { tokens(): unknown };
  start(provider: unknown, mcpUrl: URL): Promise<string>;
  finish(provider: unknown, mcpUrl: URL, callback: URL): Promise<string>;
  connect(provider: unknown, mcpUrl: URL): Promise<HostSession>;
}

const metadata = (redirect: string) => ({
  client_name: 'Hôte CIMD de test',
  redirect_uris: [redirect],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

const sdk1: Sdk = {
  name: '@modelcontextprotocol/sdk 1.x',
  provider: (redirect, documentUrl, onRedirect) =>
    new InMemoryOAuthClientProvider(redirect, metadata(redirect), onRedirect, documentUrl),
  start: (provider, mcpUrl) =>
    v1Auth.auth(provider as InMemoryOAuthClientProvider, { serverUrl: mcpUrl, scope: 'read alerts' }),
  finish: (provider, mcpUrl, callback) =>
    v1Auth.auth(provider as InMemoryOAuthClientProvider, {
      serverUrl: mcpUrl,
      authorizationCode: callback.searchParams.get('code') as string,
    }),
  async connect(provider, mcpUrl) {
    const client = new V1Client({ name: 'hote-cimd1', version: '1.0.0' });
    await client.connect(new V1Transport(mcpUrl, { authProvider: provider as InMemoryOAuthClientProvider }));
    return {
      callTool: async (name, args) =>
        (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: unknown },
      close: () => client.close(),
    };
  },
};

const sdk2: Sdk = {
  name: '@modelcontextprotocol/client 2.x',
  provider: (redirect, documentUrl, onRedirect) =>
    new HostProvider(redirect, metadata(redirect), onRedirect, documentUrl),
  start: (provider, mcpUrl) => v2.auth(provider as HostProvider, { serverUrl: mcpUrl, scope: 'read alerts' }),
  finish: (provider, mcpUrl, callback) =>
    v2.auth(provider as HostProvider, {
      serverUrl: mcpUrl,
      authorizationCode: callback.searchParams.get('code') as string,
      iss: callback.searchParams.get('iss') as string,
    }),
  async connect(provider, mcpUrl) {
    const client = new v2.Client({ name: 'hote-cimd2', version: '1.0.0' });
    await client.connect(new v2.StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as HostProvider }));
    return {
      callTool: async (name, args) =>
        (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: unknown },
      close: () => client.close(),
    };
  },
};

let t: ListeningApp;
let smtp: TestSmtpServer;
let documents: DocumentServer;
let chromium: Browser;
let page: Page;
let callback: CallbackListener;
let now = Date.now();

beforeAll(async () => {
  const tls = selfSignedCertificate();
  documents = await documentServer({ tls });
  smtp = await startSmtpServer();
  // CIMD_ALLOW_HTTP_LOOPBACK also lets the fetcher reach the loopback address the document is on.
  t = await listeningApp(
    new Date(now).toISOString(),
    { SMTP_URL: smtp.url, CIMD_ALLOW_HTTP_LOOPBACK: 'true' },
    { clientDocumentsCa: tls.cert },
  );
  chromium = await launchChromium();
  page = await (await chromium.newContext()).newPage();
  callback = await startCallbackListener();
});
afterAll(async () => {
  await chromium?.close();
  await callback?.close();
  await t?.close();
  await documents?.close();
  await smtp?.close();
});

describe.each([
  [sdk1, '/sdk1/client.json'],
  [sdk2, '/sdk2/client.json'],
])('$name with clientMetadataUrl', (sdk, path) => {
  let provider: ReturnType<Sdk['provider']>;
  let session: HostSession;
  let documentUrl: string;
  afterAll(() => session?.close());

  it('uses its https document URL as client_id, without registering, through the browser flow', {
    timeout: 120_000,
  }, async () => {
    documentUrl = `${documents.base}${path}`;
    expect(documentUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
    documents.serve(path, { body: { client_id: documentUrl, ...metadata(callback.url) } });
    let authorizationUrl: URL | undefined;
    provider = sdk.provider(callback.url, documentUrl, (url) => {
      authorizationUrl = url;
    });
    t.exchanges.length = 0;
    expect(await sdk.start(provider, t.mcpUrl)).toBe('REDIRECT');
    expect(authorizationUrl?.searchParams.get('client_id')).toBe(documentUrl);
    const back = await approveInChromium(page, t.app, smtp, (authorizationUrl as URL).href, PERSON, callback);
    expect(back.searchParams.get('iss')).toBe(t.base);
    expect(await sdk.finish(provider, t.mcpUrl, back)).toBe('AUTHORIZED');
    expect(provider.tokens()).toMatchObject({ token_type: 'Bearer', scope: 'read alerts' });
    expect(documents.hits(path)).toBeGreaterThan(0);
    expect(t.exchanges.map((e) => e.path)).not.toContain('/api/oauth/register');
  });

  it('calls a tool for the person, the document not fetched again on the MCP path', async () => {
    const fetched = documents.hits(path);
    t.exchanges.length = 0;
    session = await sdk.connect(provider, t.mcpUrl);
    const listed = await session.callTool('watches', { action: 'list' });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toEqual({ watches: [] });
    const last = t.exchanges.at(-1)?.identity;
    expect(last).toMatchObject({ kind: 'client', clientId: documentUrl, scopes: ['read', 'alerts'] });
    expect(documents.hits(path)).toBe(fetched);
  });

  it('recovers by itself when the access token expires: 401, refresh (rotated), the call again', async () => {
    const before = provider.tokens() as { access_token: string; refresh_token: string };
    now += 2 * 3600 * 1000;
    t.clock.set(new Date(now).toISOString());
    t.exchanges.length = 0;
    const listed = await session.callTool('watches', { action: 'list' });
    expect(listed.isError).toBeFalsy();
    const after = provider.tokens() as { access_token: string; refresh_token: string };
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    const seen = t.exchanges.map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(seen).toEqual(
      expect.arrayContaining(['POST /api/mcp 401', 'POST /api/oauth/token 200', 'POST /api/mcp 200']),
    );
  });
});
