import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthClients } from '../../../src/db/schema.js';
import { BASE_URL, buildTestApp, type TestApp } from '../../helpers/app.js';

const OWN = new URL(BASE_URL).origin;
const PAGE = 'https://some-page.example';
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { OAUTH_REGISTRATION_ORIGINS: `${OWN},https://inspector.example` } });
});
afterAll(() => t.close());

const preflight = (url: string, origin: string) =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
const register = (headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/api/oauth/register', headers, payload: { client_name: 'cors drill' } });
const clients = async () => (await t.db.database.db.select({ n: count() }).from(oauthClients))[0]?.n;

describe('CORS on the OAuth endpoints', () => {
  it('lets a listed browser origin register (preflight and request), and any agent without Origin', async () => {
    for (const origin of [OWN, 'https://inspector.example']) {
      const pre = await preflight('/api/oauth/register', origin);
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe(origin);
      expect(pre.headers['access-control-allow-methods']).toContain('POST');
      const res = await register({ origin });
      expect(res.statusCode).toBe(201);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    }
    expect((await register()).statusCode).toBe(201);
  });

  it('refuses registration from any other web page: no CORS on the preflight, 403 and nothing stored on the POST', async () => {
    const pre = await preflight('/api/oauth/register', PAGE);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const before = await clients();
    const res = await register({ origin: PAGE });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'invalid_request',
      error_description:
        'Client registration from this browser origin is not allowed; register from your own server or agent.',
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(await clients()).toBe(before);
  });

  it('keeps the token endpoint open to every origin (it needs a secret the page already has)', async () => {
    const pre = await preflight('/api/oauth/token', PAGE);
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: { origin: PAGE, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=cl_x&client_secret=y',
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('OAUTH_REGISTRATION_ORIGINS=* opens registration to every origin', async () => {
    const open = await buildTestApp({ env: { OAUTH_REGISTRATION_ORIGINS: '*' } });
    try {
      const res = await open.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        headers: { origin: PAGE },
        payload: { client_name: 'x' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    } finally {
      await open.close();
    }
  });
});
