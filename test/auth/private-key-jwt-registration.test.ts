import { exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { assertionForm, type ClientKey, clientKey, signAssertion } from '../helpers/assertions.js';
import { type DocumentServer, documentServer } from '../helpers/document-server.js';
import { basic, form } from '../helpers/oauth.js';

/* A registered client (RFC 7591) that gives public keys instead of receiving a secret (RFC 7523). */

const clock = frozenClock('2026-03-02T10:00:00Z');
const now = () => Math.floor(clock.now().getTime() / 1000);
let t: TestApp;
let key: ClientKey;
let server: DocumentServer;

beforeAll(async () => {
  server = await documentServer();
  key = await clientKey('ES256');
  t = await buildTestApp({ clock, env: { CIMD_ALLOW_HTTP_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const registerWith = (payload: object) => t.app.inject({ method: 'POST', url: '/api/oauth/register', payload });
const token = (payload: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload,
  });

describe('registering a private_key_jwt client', () => {
  it('gets no secret, echoes its keys, and gets tokens with assertions only', async () => {
    const res = await registerWith({
      client_name: 'agent à clés',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const client = res.json();
    expect(client).not.toHaveProperty('client_secret');
    expect(client).not.toHaveProperty('client_secret_expires_at');
    expect(client).toMatchObject({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
      grant_types: ['client_credentials'],
    });

    const assertion = await signAssertion(key, {
      clientId: client.client_id,
      aud: `${BASE_URL}/api/oauth/token`,
      now: now(),
    });
    const ok = await token(assertionForm(assertion));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().scope).toBe('read');

    const withSecret = await token(form({ grant_type: 'client_credentials' }), {
      authorization: basic(client.client_id, 'anything'),
    });
    expect(withSecret.statusCode).toBe(401);
    expect(withSecret.json().error_description).toMatch(/authenticates with private_key_jwt/);
  });

  it('with a jwks_uri, fetched when it first authenticates', async () => {
    const jwksUri = server.serve('/registered/jwks.json', { body: { keys: [key.publicJwk] } });
    const res = await registerWith({
      client_name: 'agent',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: jwksUri,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().jwks_uri).toBe(jwksUri);
    expect(server.hits('/registered/jwks.json')).toBe(0);
    const assertion = await signAssertion(key, { clientId: res.json().client_id, aud: BASE_URL, now: now() });
    expect((await token(assertionForm(assertion))).statusCode).toBe(200);
    expect(server.hits('/registered/jwks.json')).toBe(1);
  });

  it('a secret client cannot authenticate with an assertion', async () => {
    const res = await registerWith({ client_name: 'agent à secret' });
    const assertion = await signAssertion(key, { clientId: res.json().client_id, aud: BASE_URL, now: now() });
    const refused = await token(assertionForm(assertion));
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error_description).toMatch(/registered with client_secret_basic/);
  });

  it('refuses missing, doubled, private or weak keys, and unsafe jwks_uri, with invalid_client_metadata', async () => {
    const { privateKey } = key;
    const weakRsa = { kty: 'RSA', n: 'AQAB'.repeat(20), e: 'AQAB' };
    for (const [metadata, reason] of [
      [{}, /needs your public keys: jwks or jwks_uri/],
      [{ jwks: { keys: [key.publicJwk] }, jwks_uri: 'https://agent.example/jwks.json' }, /must not both be present/],
      [{ jwks: { keys: [await exportJWK(privateKey)] } }, /private or symmetric key material/],
      [{ jwks: { keys: [] } }, /non-empty "keys" array/],
      [{ jwks: { keys: [weakRsa] } }, /shorter than 2048 bits/],
      [{ jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, /private or symmetric/],
      [{ jwks_uri: 'http://agent.example/jwks.json' }, /must be an https URL/],
      [{ jwks_uri: 'https://169.254.169.254/latest' }, /public internet/],
    ] as const) {
      const res = await registerWith({
        client_name: 'agent',
        token_endpoint_auth_method: 'private_key_jwt',
        ...metadata,
      });
      expect(res.statusCode, JSON.stringify(metadata)).toBe(400);
      expect(res.json().error).toBe('invalid_client_metadata');
      expect(res.json().error_description).toMatch(reason);
    }
  });
});
