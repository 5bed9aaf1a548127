import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, type TestApp } from '../helpers/app.js';
import { SESSIONS } from '../helpers/fixtures.js';

/*
 * A token that is not one, on every door that takes tokens: 401 with the same challenge, in the
 * format of the door — problem+json on the REST routes of claimed agents, a JSON-RPC error on MCP.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

const BAD = { authorization: 'Bearer not.a.token' };

describe('a malformed or forged access token', () => {
  it('is a 401 problem on the REST routes that take tokens, with the challenge', async () => {
    const requests = [
      { method: 'GET' as const, url: '/api/watches' },
      { method: 'DELETE' as const, url: '/api/watches/00000000-0000-4000-8000-000000000000' },
      { method: 'GET' as const, url: '/api/holds/hld_0000000000000000000000' },
      { method: 'DELETE' as const, url: '/api/holds/hld_0000000000000000000000' },
      { method: 'POST' as const, url: `/api/stages/${SESSIONS.lyonMar5.id}/holds`, payload: {} },
    ];
    for (const request of requests) {
      const res = await t.app.inject({ ...request, headers: BAD });
      const label = `${request.method} ${request.url}`;
      expect(res.statusCode, label).toBe(401);
      expect(res.headers['content-type'], label).toMatch(/^application\/problem\+json/);
      expect(res.json(), label).toMatchObject({ status: 401, code: 'invalid_token', instance: request.url });
      expect(res.headers['www-authenticate'], label).toMatch(
        new RegExp(`^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="${BASE_URL}/`),
      );
      expect(res.headers['cache-control'], label).toBe('no-store');
    }
  });

  it('is a JSON-RPC error on the MCP endpoint, with the same challenge', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...BAD, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });
});
