import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

type Res = Awaited<ReturnType<TestApp['app']['inject']>>;

function expectRefusal(res: Res, error: string) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  // Never a redirect: no client has a redirect URI this server could check.
  expect(res.headers.location).toBeUndefined();
  const body = res.json();
  expect(body).toEqual({ error, error_description: expect.any(String) });
  // The refusal tells the caller what to do instead.
  expect(body.error_description).toContain(`${BASE_URL}/api/oauth/token`);
  expect(body.error_description).toContain('client_credentials');
  return body;
}

describe('the authorization endpoint the metadata names', () => {
  it('is the one in the authorization server metadata, which advertises no response_type', async () => {
    const as = (await t.app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    expect(as.authorization_endpoint).toBe(`${BASE_URL}/api/oauth/authorize`);
    expect(as.response_types_supported).toEqual([]);
    expect(as.grant_types_supported).toEqual(['client_credentials']);
    expect(as).not.toHaveProperty('code_challenge_methods_supported');
  });

  it.each([
    'response_type=code&client_id=cl_x&redirect_uri=https%3A%2F%2Fevil.example%2Fcb&state=s&code_challenge=abc&code_challenge_method=S256',
    'response_type=token&client_id=cl_x',
    'response_type=id_token%20token',
  ])('refuses GET ?%s with unsupported_response_type, without redirecting', async (query) => {
    expectRefusal(await t.app.inject({ url: `/api/oauth/authorize?${query}` }), 'unsupported_response_type');
  });

  it('refuses a request without response_type, or with two, as invalid_request', async () => {
    expectRefusal(await t.app.inject({ url: '/api/oauth/authorize' }), 'invalid_request');
    expectRefusal(await t.app.inject({ url: '/api/oauth/authorize?response_type=' }), 'invalid_request');
    expectRefusal(
      await t.app.inject({ url: '/api/oauth/authorize?response_type=code&response_type=token' }),
      'invalid_request',
    );
  });

  it('answers a form POST the same way', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'response_type=code&client_id=cl_x',
    });
    expectRefusal(res, 'unsupported_response_type');
  });

  it('answers other methods 405 in the OAuth format', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/oauth/authorize' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });
});
