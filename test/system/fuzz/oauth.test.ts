import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { expectCleanAnswer, fuzz, hostileJson, hostileText } from '../../helpers/fuzz.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  expect((await t.app.inject('/api/health')).statusCode).toBe(200);
  await t.close();
});

const FIELDS = ['grant_type', 'client_id', 'client_secret', 'scope', 'resource'];
const CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded; charset=utf-8',
];

describe('fuzz: OAuth forms and JSON', () => {
  it('the token endpoint answers any form with a token or an OAuth error, never echoing the secret', async () => {
    const pairs = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...FIELDS), hostileText), hostileText), { maxLength: 6 });
    const secret = fc.string({ minLength: 12, maxLength: 40 }).map((s) => `S3cr3t-${s}`);
    const basic = fc.option(fc.tuple(hostileText, secret), { nil: undefined });
    await fuzz(
      fc.tuple(pairs, secret, basic, fc.constantFrom(...CONTENT_TYPES)),
      async ([fields, sentSecret, auth, contentType]) => {
        const form = new URLSearchParams([...fields, ['client_secret', sentSecret]]).toString();
        const headers: Record<string, string> = { 'content-type': contentType };
        if (auth) headers.authorization = `Basic ${Buffer.from(`${auth[0]}:${auth[1]}`).toString('base64')}`;
        const res = await t.app.inject({ method: 'POST', url: '/api/oauth/token', headers, payload: form });
        expectCleanAnswer(res, 'oauth', [sentSecret, ...(auth ? [auth[1]] : [])]);
        expect(res.statusCode).toBeGreaterThanOrEqual(400);
      },
    );
  });

  it('the authorization endpoint answers any query or form with a 400 OAuth error, never a redirect', async () => {
    const fields = ['response_type', 'client_id', 'redirect_uri', 'state', 'scope', 'code_challenge'];
    const pairs = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...fields), hostileText), hostileText), { maxLength: 6 });
    await fuzz(
      fc.tuple(pairs, fc.constantFrom('GET', 'POST') as fc.Arbitrary<'GET' | 'POST'>),
      async ([params, method]) => {
        const encoded = new URLSearchParams(params).toString();
        const res = await t.app.inject(
          method === 'GET'
            ? { method, url: `/api/oauth/authorize?${encoded}` }
            : {
                method,
                url: '/api/oauth/authorize',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                payload: encoded,
              },
        );
        expectCleanAnswer(res, 'oauth');
        expect(res.statusCode).toBe(400);
        expect(res.headers.location).toBeUndefined();
      },
    );
  });

  it('registration answers any JSON body with 201 or invalid_client_metadata, and any other type with 415', async () => {
    const body = fc.oneof(
      fc.dictionary(
        fc.oneof(
          fc.constantFrom('client_name', 'grant_types', 'token_endpoint_auth_method', 'scope', 'redirect_uris'),
          hostileText,
        ),
        hostileJson,
        { maxKeys: 5 },
      ),
      hostileJson,
    );
    await fuzz(fc.tuple(body, fc.constantFrom(...CONTENT_TYPES)), async ([metadata, contentType]) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        headers: { 'content-type': contentType },
        payload: JSON.stringify(metadata),
      });
      expectCleanAnswer(res, 'oauth', [], { cors: false });
      if (res.statusCode === 201) expect(res.json().client_secret).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      else expect([400, 415]).toContain(res.statusCode);
    });
  });
});
