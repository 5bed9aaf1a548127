import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../src/docs/routes.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

describe('GET /docs — the API reference page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t?.close());

  it('is an HTML page loading only this origin’s assets, under a CSP that allows nothing else', async () => {
    const res = await t.app.inject('/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(DOCS_CSP).toContain("script-src 'self'");
    expect(DOCS_CSP).not.toMatch(/script-src[^;]*unsafe/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    const srcs = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(srcs.length).toBeGreaterThanOrEqual(3);
    for (const src of srcs) expect(src.startsWith('/'), `${src} is not on this origin`).toBe(true);
    expect(res.body).not.toMatch(/<script>[^<]/); // no inline script
    // Every asset the page names is served.
    for (const src of srcs.filter((s) => s.startsWith('/docs/'))) {
      const asset = await t.app.inject(src);
      expect(asset.statusCode, src).toBe(200);
      expect(asset.headers['cache-control']).toContain('immutable');
      expect(asset.rawPayload.length).toBeGreaterThan(100);
    }
  });

  it('points Swagger UI at the service’s own OpenAPI description', async () => {
    const init = await t.app.inject('/docs/assets/init.js');
    expect(init.headers['content-type']).toContain('javascript');
    expect(init.body).toContain("url: '/openapi.json'");
    const bundle = await t.app.inject('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.body).toContain('SwaggerUIBundle');
  });

  it('answers 404 for assets it does not have, including prototype names and paths', async () => {
    for (const name of ['nope.js', '__proto__', 'constructor', '..%2Fpackage.json', 'index.html']) {
      const res = await t.app.inject(`/docs/assets/${name}`);
      expect(res.statusCode, name).toBe(404);
    }
  });

  it('is linked from llms.txt', async () => {
    const res = await t.app.inject('/llms.txt');
    expect(res.body).toContain('(https://stages.example.test/docs)');
  });
});
