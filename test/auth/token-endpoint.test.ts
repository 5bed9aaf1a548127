import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { basic, form, type Registered, register } from '../helpers/oauth.js';

let t: TestApp;
let client: Registered;
const NOW = '2030-03-04T09:00:00Z';
const clock = frozenClock(NOW);
beforeAll(async () => {
  t = await buildTestApp({ clock });
  client = await register(t.app, { client_name: 'token tester' });
});
afterAll(() => t.close());

const FORM = 'application/x-www-form-urlencoded';

function token(payload: string, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': FORM, ...headers },
    payload,
  });
}

type Res = Awaited<ReturnType<typeof token>>;

function expectError(res: Res, status: number, error: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers.pragma).toBe('no-cache');
  const body = res.json();
  expect(body).toEqual({ error, error_description: expect.any(String) });
  if (status === 401) expect(res.headers['www-authenticate']).toMatch(/^Basic realm="/);
  return body;
}

function expectToken(res: Res) {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers.pragma).toBe('no-cache');
  const body = res.json();
  expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'read' });
  return body.access_token as string;
}

describe('POST /api/oauth/token', () => {
  it('issues an RFC 9068 access token to a client authenticating with HTTP Basic', async () => {
    const access = expectToken(
      await token(form({ grant_type: 'client_credentials' }), {
        authorization: basic(client.client_id, client.client_secret),
      }),
    );
    const header = decodeProtectedHeader(access);
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
    const claims = decodeJwt(access);
    const iat = Date.parse(NOW) / 1000;
    expect(claims).toEqual({
      iss: BASE_URL,
      aud: `${BASE_URL}/api/mcp`,
      sub: client.client_id,
      client_id: client.client_id,
      scope: 'read',
      iat,
      exp: iat + 3600,
      jti: expect.any(String),
    });
  });

  it('issues a token with client_secret_post, and with an explicit scope', async () => {
    expectToken(
      await token(
        form({
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: client.client_secret,
          scope: 'read',
        }),
      ),
    );
  });

  it('gives every token its own jti', async () => {
    const auth = { authorization: basic(client.client_id, client.client_secret) };
    const a = decodeJwt(expectToken(await token(form({ grant_type: 'client_credentials' }), auth)));
    const b = decodeJwt(expectToken(await token(form({ grant_type: 'client_credentials' }), auth)));
    expect(a.jti).not.toBe(b.jti);
  });

  it('accepts a content type with a charset and Basic credentials with a client_id in the body', async () => {
    expectToken(
      await token(form({ grant_type: 'client_credentials', client_id: client.client_id }), {
        'content-type': `${FORM}; charset=UTF-8`,
        authorization: basic(client.client_id, client.client_secret),
      }),
    );
  });

  it('decodes form-urlencoded Basic credentials (RFC 6749 §2.3.1)', async () => {
    // A client that percent-encodes every character of the secret must still authenticate.
    const pct = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const header = `Basic ${Buffer.from(`${client.client_id}:${pct(client.client_secret)}`).toString('base64')}`;
    expectToken(await token(form({ grant_type: 'client_credentials' }), { authorization: header }));
  });

  it('sets the audience from an RFC 8707 resource parameter', async () => {
    const auth = { authorization: basic(client.client_id, client.client_secret) };
    const root = expectToken(await token(form({ grant_type: 'client_credentials', resource: BASE_URL }), auth));
    expect(decodeJwt(root).aud).toBe(BASE_URL);
    expectError(
      await token(form({ grant_type: 'client_credentials', resource: 'https://elsewhere.example/api' }), auth),
      400,
      'invalid_target',
    );
  });

  it('refuses a wrong secret and an unknown client alike', async () => {
    const wrong = expectError(
      await token(form({ grant_type: 'client_credentials' }), { authorization: basic(client.client_id, 'nope') }),
      401,
      'invalid_client',
    );
    const unknown = expectError(
      await token(form({ grant_type: 'client_credentials' }), {
        authorization: basic('cl_AAAAAAAAAAAAAAAAAAAAAA', client.client_secret),
      }),
      401,
      'invalid_client',
    );
    expect(wrong.error_description).toBe(unknown.error_description);
    expectError(
      await token(form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'x' })),
      401,
      'invalid_client',
    );
    expectError(
      await token(form({ grant_type: 'client_credentials', client_id: "x' or 1=1 --", client_secret: 'x' })),
      401,
      'invalid_client',
    );
  });

  it('refuses a request without client authentication', async () => {
    expectError(await token(form({ grant_type: 'client_credentials' })), 401, 'invalid_client');
    expectError(
      await token(form({ grant_type: 'client_credentials', client_id: client.client_id })),
      401,
      'invalid_client',
    );
  });

  it('refuses two authentication methods at once', async () => {
    expectError(
      await token(
        form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
        { authorization: basic(client.client_id, client.client_secret) },
      ),
      400,
      'invalid_request',
    );
  });

  it('refuses Basic credentials that do not match the body client_id', async () => {
    const other = await register(t.app);
    expectError(
      await token(form({ grant_type: 'client_credentials', client_id: other.client_id }), {
        authorization: basic(client.client_id, client.client_secret),
      }),
      400,
      'invalid_request',
    );
  });

  it.each([
    ['not base64', 'Basic !!!'],
    ['no colon', `Basic ${Buffer.from('justanid').toString('base64')}`],
    ['bad percent-encoding', `Basic ${Buffer.from('a%zz:b').toString('base64')}`],
    ['empty', 'Basic '],
  ])('refuses malformed Basic credentials (%s)', async (_label, authorization) => {
    expectError(await token(form({ grant_type: 'client_credentials' }), { authorization }), 401, 'invalid_client');
  });

  it('does not accept an access token as client authentication', async () => {
    const access = expectToken(
      await token(form({ grant_type: 'client_credentials' }), {
        authorization: basic(client.client_id, client.client_secret),
      }),
    );
    expectError(
      await token(form({ grant_type: 'client_credentials' }), { authorization: `Bearer ${access}` }),
      401,
      'invalid_client',
    );
  });

  it('checks grant_type and scope', async () => {
    const auth = { authorization: basic(client.client_id, client.client_secret) };
    expectError(await token(form({}), auth), 400, 'invalid_request');
    expectError(await token(form({ grant_type: 'password' }), auth), 400, 'unsupported_grant_type');
    expectError(
      await token(form({ grant_type: 'authorization_code', code: 'x' }), auth),
      400,
      // A grant this server has, that this client did not register.
      'unauthorized_client',
    );
    expectError(await token(form({ grant_type: 'client_credentials', scope: 'admin' }), auth), 400, 'invalid_scope');
    expectError(
      await token(form({ grant_type: 'client_credentials', scope: 'read write' }), auth),
      400,
      'invalid_scope',
    );
  });

  it('refuses repeated parameters', async () => {
    expectError(
      await token('grant_type=client_credentials&grant_type=client_credentials', {
        authorization: basic(client.client_id, client.client_secret),
      }),
      400,
      'invalid_request',
    );
  });

  it('answers 415 in OAuth format for a JSON body, and 413 for a huge one', async () => {
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: { 'content-type': 'application/json', authorization: basic(client.client_id, client.client_secret) },
      payload: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    expectError(json, 415, 'invalid_request');
    const xml = await token('<x/>', { 'content-type': 'application/xml' });
    expectError(xml, 415, 'invalid_request');
    const huge = await token(`grant_type=client_credentials&pad=${'x'.repeat(100_000)}`, {
      authorization: basic(client.client_id, client.client_secret),
    });
    expectError(huge, 413, 'invalid_request');
  });

  it('answers 405 to GET', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/oauth/token' });
    expectError(res, 405, 'invalid_request');
  });
});
