import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connect.js';
import { BASE_URL, buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { assertionForm, type ClientKey, clientKey, signAssertion } from '../helpers/assertions.js';
import { TEST_DB } from '../helpers/database.js';
import { type DocumentServer, documentServer } from '../helpers/document-server.js';

/*
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, the MCP 2025-11-25
 * authorization spec) with private_key_jwt (RFC 7523): a client whose client_id is the URL of its
 * metadata, served here by the client's own loopback server (allowed by CIMD_ALLOW_HTTP_LOOPBACK,
 * as a test configuration only may), gets tokens with assertions signed by its key.
 */

const NOW = '2026-03-02T10:00:00Z';
const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
const TOKEN_ENDPOINT = `${BASE_URL}/api/oauth/token`;
const clock = frozenClock(NOW);
const ENV = { CIMD_ALLOW_HTTP_LOOPBACK: 'true', CIMD_FETCH_TIMEOUT_MS: '300' };

let server: DocumentServer;
let t: TestApp;
let key: ClientKey;
let paths = 0;

beforeAll(async () => {
  server = await documentServer();
  key = await clientKey('ES256');
  t = await buildTestApp({ clock, env: ENV });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

/** A metadata document at a fresh path: its URL (the client_id). */
function publish(document: (clientId: string) => Record<string, unknown>, headers: Record<string, string> = {}) {
  const path = `/clients/${++paths}/client.json`;
  const clientId = `${server.base}${path}`;
  server.serve(path, { body: document(clientId), headers });
  return { clientId, path };
}

const jwtClient = (keys: { jwks: unknown } | { jwks_uri: string }) => (clientId: string) => ({
  client_id: clientId,
  client_name: 'Agent de test',
  grant_types: ['client_credentials'],
  token_endpoint_auth_method: 'private_key_jwt',
  ...keys,
});

function tokenRequest(app: TestApp['app'], body: string, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: body,
  });
}

async function assertionFor(clientId: string, overrides: Partial<Parameters<typeof signAssertion>[1]> = {}) {
  return signAssertion(overrides.aud === undefined ? key : key, {
    clientId,
    aud: TOKEN_ENDPOINT,
    now: nowSeconds(),
    ...overrides,
  });
}

/** The refusal a client developer reads: 401 invalid_client and what was wrong. */
async function expectRefused(body: string, description: RegExp, app = t.app) {
  const res = await tokenRequest(app, body);
  expect(res.statusCode, res.body).toBe(401);
  expect(res.json().error).toBe('invalid_client');
  expect(res.json().error_description).toMatch(description);
  return res;
}

describe('a client known by its metadata document, authenticating with private_key_jwt', () => {
  it('gets a token (client_credentials) whose client is the URL, and reaches the authenticated tier', async () => {
    const { clientId } = publish(jwtClient({ jwks: { keys: [key.publicJwk] } }));
    const res = await tokenRequest(t.app, assertionForm(await assertionFor(clientId)));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read' });
    expect(decodeJwt(body.access_token)).toMatchObject({ client_id: clientId, sub: clientId });

    const mcp = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: {
        authorization: `Bearer ${body.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.statusCode, mcp.body).toBe(200);
    expect(mcp.body).toContain('search_stages');
  });

  it('accepts the issuer as aud, a client_id sent along, RS256 keys and keys published at a jwks_uri', async () => {
    const rsa = await clientKey('RS256');
    server.serve('/rsa/jwks.json', { body: { keys: [rsa.publicJwk] } });
    const { clientId } = publish(jwtClient({ jwks_uri: `${server.base}/rsa/jwks.json` }));
    const assertion = await signAssertion(rsa, { clientId, aud: BASE_URL, now: nowSeconds() });
    const res = await tokenRequest(t.app, assertionForm(assertion, { client_id: clientId }));
    expect(res.statusCode, res.body).toBe(200);
    expect(decodeJwt(res.json().access_token).client_id).toBe(clientId);
  });

  it('fetches the document and the key set once, then from the cache until Cache-Control says', async () => {
    const jwksPath = `/cache/${++paths}/jwks.json`;
    server.serve(jwksPath, { body: { keys: [key.publicJwk] }, headers: { 'cache-control': 'max-age=600' } });
    const { clientId, path } = publish(jwtClient({ jwks_uri: `${server.base}${jwksPath}` }), {
      'cache-control': 'public, max-age=120',
    });
    for (let i = 0; i < 3; i++) {
      const res = await tokenRequest(t.app, assertionForm(await assertionFor(clientId)));
      expect(res.statusCode, res.body).toBe(200);
    }
    expect(server.hits(path)).toBe(1);
    expect(server.hits(jwksPath)).toBe(1);

    // Past the document's max-age (two minutes) it is fetched again; the key set is still fresh.
    clock.set(new Date(clock.now().getTime() + 121_000).toISOString());
    const res = await tokenRequest(t.app, assertionForm(await assertionFor(clientId)));
    expect(res.statusCode, res.body).toBe(200);
    expect(server.hits(path)).toBe(2);
    expect(server.hits(jwksPath)).toBe(1);
  });

  it('fetches a key set again, once, for a key it lacks (the client rotated its keys)', async () => {
    const jwksPath = `/rotate/${++paths}/jwks.json`;
    const next = await clientKey('ES256');
    server.serve(jwksPath, { body: { keys: [key.publicJwk] } });
    const { clientId } = publish(jwtClient({ jwks_uri: `${server.base}${jwksPath}` }));
    expect((await tokenRequest(t.app, assertionForm(await assertionFor(clientId)))).statusCode).toBe(200);
    server.serve(jwksPath, { body: { keys: [key.publicJwk, next.publicJwk] } });
    // Within a minute of the last fetch, an unknown key is just refused (no fetch per request).
    const early = await signAssertion(next, { clientId, aud: TOKEN_ENDPOINT, now: nowSeconds() });
    await expectRefused(assertionForm(early), /signature does not verify/);
    expect(server.hits(jwksPath)).toBe(1);
    clock.set(new Date(clock.now().getTime() + 61_000).toISOString());
    const later = await signAssertion(next, { clientId, aud: TOKEN_ENDPOINT, now: nowSeconds() });
    expect((await tokenRequest(t.app, assertionForm(later))).statusCode).toBe(200);
    expect(server.hits(jwksPath)).toBe(2);
  });
});

describe('documents that are refused, each saying why', () => {
  it('a client_id in the document that is not the URL, character for character', async () => {
    const { clientId, path } = publish((id) =>
      jwtClient({ jwks: { keys: [key.publicJwk] } })(id.replace('client.json', 'other.json')),
    );
    await expectRefused(assertionForm(await assertionFor(clientId)), /client_id is not the URL it was fetched from/);
    // An invalid document is not cached: the next request fetches again.
    await expectRefused(assertionForm(await assertionFor(clientId)), /client_id is not the URL/);
    expect(server.hits(path)).toBe(2);
  });

  it('a document larger than 5 KB', async () => {
    const { clientId } = publish((id) => ({
      ...jwtClient({ jwks: { keys: [key.publicJwk] } })(id),
      client_uri: `https://example.org/${'x'.repeat(6000)}`,
    }));
    await expectRefused(assertionForm(await assertionFor(clientId)), /is larger than 5120 bytes/);
  });

  it('a host that does not answer in time (CIMD_FETCH_TIMEOUT_MS)', async () => {
    server.serve('/slow/client.json', { hang: true });
    const clientId = `${server.base}/slow/client.json`;
    await expectRefused(assertionForm(await assertionFor(clientId)), /did not answer within 300 ms/);
  });

  it('a redirect, which is not followed', async () => {
    const { clientId: target, path: targetPath } = publish(jwtClient({ jwks: { keys: [key.publicJwk] } }));
    server.serve('/moved/client.json', { status: 302, headers: { location: target }, body: '' });
    const clientId = `${server.base}/moved/client.json`;
    await expectRefused(
      assertionForm(await assertionFor(clientId)),
      /redirect \(HTTP 302\); redirects are not followed/,
    );
    expect(server.hits(targetPath)).toBe(0);
  });

  it('an answer other than 200, and a body that is not JSON', async () => {
    await expectRefused(
      assertionForm(await assertionFor(`${server.base}/nowhere/client.json`)),
      /answered HTTP 404, not 200/,
    );
    server.serve('/garbled/client.json', { body: '{"client_id": ' });
    await expectRefused(assertionForm(await assertionFor(`${server.base}/garbled/client.json`)), /is not valid JSON/);
  });

  it('a document that carries a client_secret, or a secret-based method', async () => {
    const withSecret = publish((id) => ({
      ...jwtClient({ jwks: { keys: [key.publicJwk] } })(id),
      client_secret: 's3cret',
    }));
    await expectRefused(assertionForm(await assertionFor(withSecret.clientId)), /must not carry a secret/);
    const basicMethod = publish((id) => ({
      ...jwtClient({ jwks: { keys: [key.publicJwk] } })(id),
      token_endpoint_auth_method: 'client_secret_basic',
    }));
    await expectRefused(assertionForm(await assertionFor(basicMethod.clientId)), /needs a shared secret/);
  });

  it('private keys in the document, or private_key_jwt without keys', async () => {
    const { privateKey } = key;
    const { exportJWK } = await import('jose');
    const leaked = publish(jwtClient({ jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'k' }] } }));
    await expectRefused(assertionForm(await assertionFor(leaked.clientId)), /private or symmetric key material/);
    const keyless = publish((id) => ({
      client_id: id,
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
    }));
    await expectRefused(assertionForm(await assertionFor(keyless.clientId)), /"jwks" or "jwks_uri"/);
  });

  it('a URL client_id that is not https, has no path, or carries a fragment or credentials', async () => {
    for (const [clientId, reason] of [
      ['http://agent.example/client.json', /must be an https URL/],
      [`${server.base}/`, /must have a path/],
      [`${server.base}/c.json#x`, /must not contain a fragment/],
      [`http://user:pw@127.0.0.1:${new URL(server.base).port}/c.json`, /user name or password/],
      [`${server.base}/a/../client.json`, /\. or \.\. path segments/],
    ] as const) {
      await expectRefused(assertionForm(await assertionFor(clientId)), reason);
    }
  });

  it('a client whose document lists no client_credentials grant, or publishes no keys', async () => {
    const browserOnly = publish((id) => ({
      client_id: id,
      client_name: 'Hôte interactif',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      token_endpoint_auth_method: 'none',
    }));
    await expectRefused(assertionForm(await assertionFor(browserOnly.clientId)), /token_endpoint_auth_method "none"/);
    const noGrant = publish((id) => ({
      ...jwtClient({ jwks: { keys: [key.publicJwk] } })(id),
      grant_types: ['authorization_code'],
      redirect_uris: ['https://app.example/callback'],
    }));
    const res = await tokenRequest(t.app, assertionForm(await assertionFor(noGrant.clientId)));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'unauthorized_client' });
    expect(res.json().error_description).toMatch(/does not list client_credentials/);
  });

  it('a secret presented for a URL client_id, without fetching anything', async () => {
    const { clientId, path } = publish(jwtClient({ jwks: { keys: [key.publicJwk] } }));
    const res = await tokenRequest(
      t.app,
      new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'x' }).toString(),
    );
    expect(res.statusCode).toBe(401);
    expect(res.json().error_description).toMatch(/cannot have a secret: authenticate with private_key_jwt/);
    expect(server.hits(path)).toBe(0);
  });
});

describe('assertions that are refused', () => {
  let clientId: string;
  beforeAll(() => {
    clientId = publish(jwtClient({ jwks: { keys: [key.publicJwk] } })).clientId;
  });

  it('an expired one, one living too long, one without exp or jti', async () => {
    await expectRefused(
      assertionForm(await assertionFor(clientId, { now: nowSeconds() - 600, lifetime: 60 })),
      /has expired/,
    );
    await expectRefused(assertionForm(await assertionFor(clientId, { lifetime: 3600 })), /exp is too far ahead/);
    await expectRefused(assertionForm(await assertionFor(clientId, { omit: ['exp'] })), /must have an exp claim/);
    await expectRefused(assertionForm(await assertionFor(clientId, { omit: ['jti'] })), /must have a jti claim/);
  });

  it('one for another audience, or whose iss is not the client', async () => {
    await expectRefused(
      assertionForm(await assertionFor(clientId, { aud: 'https://other.example/token' })),
      /aud must be the token endpoint/,
    );
    await expectRefused(
      assertionForm(await assertionFor(clientId, { iss: 'https://someone.example/client.json' })),
      /iss and sub must both be the client_id/,
    );
  });

  it('one signed with a key that is not the client’s', async () => {
    const stranger = await clientKey('ES256');
    const forged = await signAssertion(
      { ...stranger, kid: key.kid },
      { clientId, aud: TOKEN_ENDPOINT, now: nowSeconds() },
    );
    await expectRefused(assertionForm(forged), /signature does not verify/);
  });

  it('one used a second time, on this instance or another one of the same database', async () => {
    const assertion = await assertionFor(clientId);
    expect((await tokenRequest(t.app, assertionForm(assertion))).statusCode).toBe(200);
    await expectRefused(assertionForm(assertion), /already used/);

    const second = await assertionFor(clientId);
    const db2 = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
    const other = await buildApp(testConfig(ENV), { database: db2 ?? t.db.database, logger: false, clock });
    try {
      await other.ready();
      expect((await tokenRequest(other, assertionForm(second))).statusCode).toBe(200);
      await expectRefused(assertionForm(second), /already used/);
      await expectRefused(assertionForm(assertion), /already used/, other);
    } finally {
      await other.close();
      await db2?.close();
    }
  });

  it('an assertion mixed with a secret, or a client_id that is not its sub', async () => {
    const assertion = await assertionFor(clientId);
    const both = await tokenRequest(t.app, assertionForm(assertion, { client_secret: 'x' }));
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toBe('invalid_request');
    await expectRefused(assertionForm(assertion, { client_id: 'cl_AAAAAAAAAAAAAAAAAAAAAA' }), /does not match/);
    await expectRefused(
      assertionForm(assertion).replace('jwt-bearer', 'saml2-bearer'),
      /client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer/,
    );
  });
});

describe('without the test allowance (production)', () => {
  let prod: TestApp;
  beforeAll(async () => {
    prod = await buildTestApp({ clock, database: t.db });
  });
  afterAll(async () => prod?.close());

  it('refuses http, private addresses and names that resolve to them, before any request', async () => {
    const { clientId, path } = publish(jwtClient({ jwks: { keys: [key.publicJwk] } }));
    const port = new URL(server.base).port;
    await expectRefused(assertionForm(await assertionFor(clientId)), /must be an https URL/, prod.app);
    await expectRefused(
      assertionForm(await assertionFor(`https://127.0.0.1:${port}${path}`)),
      /must be on the public internet/,
      prod.app,
    );
    await expectRefused(
      assertionForm(await assertionFor(`https://10.1.2.3${path}`)),
      /must be on the public internet/,
      prod.app,
    );
    await expectRefused(
      assertionForm(await assertionFor(`https://localhost:${port}${path}`)),
      /resolves to an address that is not on the public internet/,
      prod.app,
    );
    expect(server.hits(path)).toBe(0);
  });

  it('and the test allowance still refuses private addresses that are not loopback', async () => {
    await expectRefused(assertionForm(await assertionFor('http://10.1.2.3/client.json')), /must be an https URL/);
    await expectRefused(
      assertionForm(await assertionFor('https://192.168.1.10/client.json')),
      /must be on the public internet/,
    );
  });
});

describe('the claim', () => {
  it('is refused to a client known by its document with a clear error, not a failure', async () => {
    const { clientId } = publish(jwtClient({ jwks: { keys: [key.publicJwk] } }));
    const token = (await tokenRequest(t.app, assertionForm(await assertionFor(clientId)))).json().access_token;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/claim',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { scope: 'alerts' },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request' });
    expect(res.json().error_description).toMatch(/known by its metadata document/);
  });
});
