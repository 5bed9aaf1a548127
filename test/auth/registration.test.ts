import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { register } from '../helpers/oauth.js';

let t: TestApp;
const clock = frozenClock('2030-03-04T09:00:00Z');
beforeAll(async () => {
  t = await buildTestApp({ clock });
});
afterAll(() => t.close());

const post = (payload: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  t.app.inject({
    method: 'POST',
    url: '/api/oauth/register',
    headers,
    payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
  });

function expectOAuthError(res: Awaited<ReturnType<typeof post>>, status: number, error: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  const body = res.json();
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  expect(res.body).not.toMatch(/ at .*\.(ts|js):\d+/);
  return body;
}

describe('POST /api/oauth/register', () => {
  it('registers an anonymous client and shows the secret once', async () => {
    const res = await post({ client_name: '  My agent  ', redirect_uris: ['https://x.test/cb'], logo_uri: 'x' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body).toEqual({
      client_id: expect.stringMatching(/^cl_[A-Za-z0-9_-]{22}$/),
      client_secret: expect.any(String),
      client_id_issued_at: Date.parse('2030-03-04T09:00:00Z') / 1000,
      client_secret_expires_at: 0,
      client_name: 'My agent',
      // The redirect URI asked for is not registered: no flow here redirects.
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'read',
    });
    // ≥ 256 bits: 32 bytes are 43 base64url characters.
    expect(body.client_secret).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(Buffer.from(body.client_secret, 'base64url').length).toBeGreaterThanOrEqual(32);
  });

  it('stores only a hash of the secret', async () => {
    const { client_id, client_secret } = await register(t.app);
    const rows = await t.db.database.db.execute(sql`select * from oauth_clients where client_id = ${client_id}`);
    const text = JSON.stringify(rows);
    expect(text).toContain(client_id);
    expect(text).not.toContain(client_secret);
  });

  it('gives every client its own id and secret', async () => {
    const a = await register(t.app);
    const b = await register(t.app);
    expect(a.client_id).not.toBe(b.client_id);
    expect(a.client_secret).not.toBe(b.client_secret);
  });

  it('echoes the metadata it accepts', async () => {
    const res = await post({
      client_name: 'Poster',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'read',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ token_endpoint_auth_method: 'client_secret_post', scope: 'read' });
  });

  it.each([
    ['no client_name', {}],
    ['a null client_name', { client_name: null }],
    ['an empty client_name', { client_name: '' }],
    ['a blank client_name', { client_name: '   \t ' }],
    ['a client_name over 100 characters', { client_name: 'x'.repeat(101) }],
    ['a number', { client_name: 42 }],
    ['an array', { client_name: ['a'] }],
    ['an object', { client_name: { a: 1 } }],
    ['a newline', { client_name: 'evil\nname' }],
    ['a NUL', { client_name: 'a\u0000b' }],
    ['an escape sequence', { client_name: '\u001b[31mred' }],
    ['a bidi override', { client_name: 'abc\u202Egpj.exe' }],
    ['a lone surrogate', { client_name: 'a\uD800b' }],
    [
      'an authorization_code grant with another response type',
      {
        client_name: 'a',
        grant_types: ['authorization_code'],
        redirect_uris: ['https://a.example/cb'],
        response_types: ['token'],
      },
    ],
    ['an unknown grant', { client_name: 'a', grant_types: ['password'] }],
    ['mixed grants', { client_name: 'a', grant_types: ['client_credentials', 'refresh_token'] }],
    ['empty grants', { client_name: 'a', grant_types: [] }],
    ['grant_types as a string', { client_name: 'a', grant_types: 'client_credentials' }],
    ['auth method none', { client_name: 'a', token_endpoint_auth_method: 'none' }],
    ['auth method private_key_jwt', { client_name: 'a', token_endpoint_auth_method: 'private_key_jwt' }],
    ['an unknown scope', { client_name: 'a', scope: 'read write' }],
    ['scope as a number', { client_name: 'a', scope: 1 }],
  ])('refuses %s with invalid_client_metadata', async (_label, body) => {
    const res = await post(body);
    expectOAuthError(res, 400, 'invalid_client_metadata');
  });

  it('accepts a name of exactly 100 characters, counting characters rather than UTF-16 units', async () => {
    expect((await post({ client_name: 'é'.repeat(100) })).statusCode).toBe(201);
    expect((await post({ client_name: '😀'.repeat(100) })).statusCode).toBe(201);
    expect((await post({ client_name: '😀'.repeat(101) })).statusCode).toBe(400);
  });

  it.each([
    ['a JSON array', '[]'],
    ['a JSON string', '"name"'],
    ['JSON null', 'null'],
    ['malformed JSON', '{"client_name": '],
    ['an empty body', ''],
  ])('refuses %s', async (_label, payload) => {
    expectOAuthError(await post(payload), 400, 'invalid_client_metadata');
  });

  it('answers 415 for a body that is not JSON', async () => {
    expectOAuthError(
      await post('client_name=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'invalid_request',
    );
    expectOAuthError(await post('client_name', { 'content-type': 'text/plain' }), 415, 'invalid_request');
    expectOAuthError(await post('<x/>', { 'content-type': 'application/xml' }), 415, 'invalid_request');
  });

  it('answers 413 for a huge body', async () => {
    const res = await post({ client_name: 'a', padding: 'x'.repeat(100_000) });
    expectOAuthError(res, 413, 'invalid_request');
  });

  it('answers 405 to GET', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/oauth/register' });
    expectOAuthError(res, 405, 'invalid_request');
    expect(res.headers.allow).toBe('POST');
  });
});

describe('/api/oauth/claim', () => {
  // The whole claim flow: test/agent-claims/claim.test.ts.
  it('is a POST with the client’s token, answered in the OAuth format', async () => {
    const get = await t.app.inject({ method: 'GET', url: '/api/oauth/claim' });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/oauth/claim' });
    expect(anonymous.statusCode).toBe(400);
    expect(anonymous.json().error).toBe('invalid_request');
    expect(anonymous.headers['www-authenticate']).toBeUndefined();
  });
});
