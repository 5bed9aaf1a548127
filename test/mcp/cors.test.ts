import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, type TestApp } from '../helpers/app.js';

/* The CORS preflight of /api/mcp says what the POST will do: CORS for MCP_ALLOWED_ORIGINS only. */

const OWN = new URL(BASE_URL).origin;
const LISTED = 'https://inspector.example';
const PAGE = 'https://some-page.example';
const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    env: { MCP_ALLOWED_ORIGINS: `${OWN},${LISTED}`, RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS: '1' },
  });
});
afterAll(() => t.close());

const preflight = (app: TestApp['app'], origin: string, remoteAddress = '198.51.100.20') =>
  app.inject({
    method: 'OPTIONS',
    url: '/api/mcp',
    remoteAddress,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, authorization, mcp-protocol-version',
    },
  });
const post = (app: TestApp['app'], origin: string, remoteAddress: string) =>
  app.inject({
    method: 'POST',
    url: '/api/mcp',
    remoteAddress,
    headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: rpc,
  });

describe('CORS on /api/mcp', () => {
  it('answers the preflight of a listed origin with its CORS headers, and its POST too', async () => {
    for (const [i, origin] of [OWN, LISTED].entries()) {
      const pre = await preflight(t.app, origin);
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe(origin);
      expect(pre.headers['access-control-allow-methods']).toContain('POST');
      expect(pre.headers['access-control-allow-headers']).toContain('mcp-protocol-version');
      expect(pre.headers['access-control-allow-headers']).toContain('authorization');
      const res = await post(t.app, origin, `198.51.100.${30 + i}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    }
  });

  it('gives any other origin no CORS headers on the preflight, as its POST is refused', async () => {
    const pre = await preflight(t.app, PAGE);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.headers['access-control-allow-methods']).toBeUndefined();
    const res = await post(t.app, PAGE, '198.51.100.40');
    expect(res.statusCode).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('does not count preflights against the budget', async () => {
    for (let i = 0; i < 5; i++) expect((await preflight(t.app, LISTED, '198.51.100.50')).statusCode).toBe(204);
    expect((await post(t.app, LISTED, '198.51.100.50')).statusCode).toBe(200);
  });

  it('MCP_ALLOWED_ORIGINS=* opens the endpoint to every origin', async () => {
    const open = await buildTestApp({ env: { MCP_ALLOWED_ORIGINS: '*' } });
    try {
      const pre = await preflight(open.app, PAGE);
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('*');
      const res = await post(open.app, PAGE, '198.51.100.60');
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    } finally {
      await open.close();
    }
  });
});
