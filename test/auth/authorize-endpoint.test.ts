import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, type TestApp } from '../helpers/app.js';
import { register } from '../helpers/oauth.js';

/*
 * The authorization endpoint's refusals that concern the client itself (unknown, or registered
 * without redirect URIs): told to the caller, never redirected (RFC 6749 §4.1.2.1). The whole
 * browser flow is in authorization-code.test.ts.
 */

let t: TestApp;
let noSite: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  noSite = await buildTestApp({
    env: {
      SITE: 'off',
      BOOKING_URL_TEMPLATE: 'https://site.example/stages/{id}',
      CENTRE_URL_TEMPLATE: 'https://site.example/centres/{slug}',
    },
  });
});
afterAll(async () => {
  await t.close();
  await noSite.close();
});

type Res = Awaited<ReturnType<TestApp['app']['inject']>>;

function expectRefusal(res: Res, error: string) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers.location).toBeUndefined();
  const body = res.json();
  expect(body).toEqual({ error, error_description: expect.any(String) });
  return body as { error: string; error_description: string };
}

describe('the authorization endpoint, to requests it cannot trust', () => {
  it('is the one in the authorization server metadata', async () => {
    const as = (await t.app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    expect(as.authorization_endpoint).toBe(`${BASE_URL}/api/oauth/authorize`);
    expect(as.response_types_supported).toEqual(['code']);
  });

  it.each([
    'response_type=code&client_id=cl_x&redirect_uri=https%3A%2F%2Fevil.example%2Fcb&state=s&code_challenge=abc&code_challenge_method=S256',
    'response_type=token&client_id=cl_x',
    'response_type=id_token%20token',
    '',
  ])('refuses GET ?%s (no such client) without redirecting', async (query) => {
    const body = expectRefusal(await t.app.inject({ url: `/api/oauth/authorize?${query}` }), 'invalid_request');
    expect(body.error_description).toMatch(/client_id/);
  });

  it('refuses a client registered for client_credentials: it has no redirect URI to send anything to', async () => {
    const client = await register(t.app);
    const res = await t.app.inject({
      url: `/api/oauth/authorize?response_type=code&client_id=${client.client_id}&redirect_uri=https%3A%2F%2Fevil.example%2Fcb`,
    });
    expect(expectRefusal(res, 'invalid_request').error_description).toContain('client_credentials');
  });

  it('answers a form POST the same way, and a browser with a page', async () => {
    const posted = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'response_type=code&client_id=cl_x',
    });
    expectRefusal(posted, 'invalid_request');
    const page = await t.app.inject({ url: '/api/oauth/authorize?client_id=cl_x', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('rien ne lui a été envoyé');
  });

  it('answers other methods 405 in the OAuth format', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/oauth/authorize' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('serves no flow without the site (SITE=off: nobody could sign in), and the metadata says so', async () => {
    const as = (await noSite.app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    expect(as.response_types_supported).toEqual([]);
    expect(as.grant_types_supported).toEqual(['client_credentials']);
    expect(as).not.toHaveProperty('code_challenge_methods_supported');
    const body = expectRefusal(
      await noSite.app.inject({ url: '/api/oauth/authorize?response_type=code&client_id=cl_x' }),
      'unsupported_response_type',
    );
    expect(body.error_description).toContain(`${BASE_URL}/api/oauth/token`);
    expectRefusal(await noSite.app.inject({ url: '/api/oauth/authorize' }), 'invalid_request');
  });
});
