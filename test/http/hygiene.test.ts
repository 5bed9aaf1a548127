import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('HTTP hygiene', () => {
  it('answers unknown paths with a problem+json 404', async () => {
    const res = await t.app.inject('/api/nope?x=1');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' });
    expect(res.json().detail).toContain('/api/nope');
  });

  it('answers a method the path does not have with a problem+json 405 and Allow', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/stages' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('opens CORS to every origin, with preflight', async () => {
    const res = await t.app.inject({ url: '/api/stages?limit=1', headers: { origin: 'https://somewhere.example' } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/stages',
      headers: { origin: 'https://somewhere.example', 'access-control-request-method': 'GET' },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-methods']).toContain('GET');
  });

  it('sets security headers and a request id on every response', async () => {
    for (const url of ['/api/stages?limit=1', '/api/health', '/nope', '/api/stages?limit=0']) {
      const res = await t.app.inject(url);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("keeps the caller's request id", async () => {
    const res = await t.app.inject({ url: '/api/health', headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers['x-request-id']).toBe('trace-123');
  });

  it('tolerates a trailing slash and odd encodings without a 500', async () => {
    expect((await t.app.inject('/api/stages/?limit=1')).statusCode).toBe(200);
    for (const url of ['/api/stages?city=%E0%A4%A', '/api/stages?city=%00', '/%', '/api/stages?dept=%F0%9F%98%80']) {
      const res = await t.app.inject(url);
      expect(res.statusCode, url).toBeLessThan(500);
    }
  });
});
