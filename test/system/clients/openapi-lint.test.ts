import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

/*
 * /openapi.json as API tools read it: Redocly's `recommended` rules and Spectral's `spectral:oas`
 * rules, run programmatically on the document the service serves. No error from either.
 */

let t: TestApp;
let source: string;
beforeAll(async () => {
  t = await buildTestApp();
  source = (await t.app.inject('/openapi.json')).body;
});
afterAll(() => t.close());

interface Finding {
  severity: 'error' | 'warn' | 'info' | 'hint';
  rule: string;
  message: string;
  at: string;
}

async function redocly(): Promise<Finding[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((p) => ({
    severity: p.severity === 'error' ? 'error' : 'warn',
    rule: p.ruleId,
    message: p.message,
    at: p.location[0]?.pointer ?? '',
  }));
}

async function spectral(): Promise<Finding[]> {
  const linter = new Spectral();
  linter.setRuleset({ extends: [[oas as never, 'recommended']] });
  const results = await linter.run(new Document(source, Json, 'openapi.json'));
  const names = ['error', 'warn', 'info', 'hint'] as const;
  return results.map((r) => ({
    severity: names[r.severity] ?? 'error',
    rule: String(r.code),
    message: r.message,
    at: r.path.join('.'),
  }));
}

const show = (findings: Finding[]) => findings.map((f) => `${f.severity} ${f.rule} at ${f.at}: ${f.message}`);

describe('/openapi.json as linters read it', () => {
  it('passes Redocly’s recommended rules with no error, and only the one known warning', async () => {
    const findings = await redocly();
    expect(show(findings.filter((f) => f.severity === 'error'))).toEqual([]);
    // GET /api/health answers 200 or 503 and nothing else: there is no 4XX to document.
    expect(show(findings)).toEqual([
      'warn operation-4xx-response at #/paths/~1api~1health/get/responses: Operation must have at least one `4XX` response.',
    ]);
  });

  it('passes Spectral’s spectral:oas rules with no error and no warning', async () => {
    const findings = await spectral();
    expect(show(findings)).toEqual([]);
  });
});

describe('the documented response headers are the ones the service sends', () => {
  const WATCHED = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'etag'];
  let limited: TestApp;
  let doc: { paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>> };
  beforeAll(async () => {
    limited = await buildTestApp({ env: { RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS: '4' } });
    doc = JSON.parse(source);
  });
  afterAll(() => limited.close());

  const documented = (path: string, status: number) =>
    Object.keys(doc.paths[path]?.get?.responses[String(status)]?.headers ?? {})
      .map((h) => h.toLowerCase())
      .sort();
  const sent = (headers: Record<string, unknown>) => WATCHED.filter((h) => headers[h] !== undefined).sort();

  it('on GET /api/stages (200, 304, 400, 429) and GET /api/stages/{id} (404)', async () => {
    const get = (url: string, headers: Record<string, string> = {}) =>
      limited.app.inject({ url, headers, remoteAddress: '203.0.113.9' });
    const ok = await get('/api/stages?limit=1');
    const notModified = await get('/api/stages?limit=1', { 'if-none-match': String(ok.headers.etag) });
    const bad = await get('/api/stages?limit=0');
    const missing = await get('/api/stages/00000000-0000-4000-8000-000000000000');
    const spent = await get('/api/stages?limit=1');
    const answers: Array<[string, number, typeof ok]> = [
      ['/api/stages', 200, ok],
      ['/api/stages', 304, notModified],
      ['/api/stages', 400, bad],
      ['/api/stages/{id}', 404, missing],
      ['/api/stages', 429, spent],
    ];
    for (const [path, status, res] of answers) {
      expect(res.statusCode).toBe(status);
      expect(sent(res.headers), `${path} ${status}`).toEqual(documented(path, status));
    }
  });
});
