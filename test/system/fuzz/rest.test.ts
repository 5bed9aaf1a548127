import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { expectCleanAnswer, fuzz, hostileText } from '../../helpers/fuzz.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  // Still healthy after everything it was sent.
  expect((await t.app.inject('/api/health')).statusCode).toBe(200);
  await t.close();
});

const PARAMS = [
  'city',
  'dept',
  'region',
  'from',
  'to',
  'maxPrice',
  'limit',
  'includeUnavailable',
  'near',
  'radiusKm',
  'sort',
  'days',
  'cursor',
];
/** Values that pass validation of the newer parameters, so that the search itself is reached. */
const plausible = fc.constantFrom(
  'Villeurbanne',
  '69003',
  'Lyon 3e',
  '45.77,4.88',
  'price',
  'distance',
  'samedi',
  '10',
  '',
);
const name = fc.oneof(fc.constantFrom(...PARAMS), hostileText);
const value = fc.oneof(hostileText, plausible);
const encode = fc.boolean();

describe('fuzz: REST query strings and paths', () => {
  it('GET /api/stages answers 200 or a problem+json 400 naming real parameters, for any query string', async () => {
    await fuzz(fc.array(fc.tuple(name, value, encode), { maxLength: 6 }), async (pairs) => {
      // Sometimes percent-encoded, sometimes raw (inject sends what the router would see).
      const query = pairs
        .map(([k, v, enc]) => (enc ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}` : `${k}=${v}`))
        .join('&');
      const res = await t.app.inject({ url: `/api/stages?${query.replace(/[#\s]/g, '')}` });
      expectCleanAnswer(res, 'problem');
      expect([200, 400], res.body).toContain(res.statusCode);
      if (res.statusCode === 400 && res.json().code === 'invalid_parameters')
        for (const e of res.json().errors) expect(PARAMS, JSON.stringify(e)).toContain(e.name);
      if (res.statusCode === 200) expect(res.json().count).toBeLessThanOrEqual(100);
    });
  });

  it('any method on any path answers in problem+json or with the resource, never a 5xx', async () => {
    const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH');
    const segment = fc.oneof(hostileText, fc.constantFrom('api', 'stages', 'health', '.well-known', 'oauth', 'mcp'));
    await fuzz(fc.tuple(method, fc.array(segment, { maxLength: 4 })), async ([m, segments]) => {
      const path = `/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
      const res = await t.app.inject({ method: m, url: path });
      // The router ignores duplicate slashes: /api//mcp is the MCP door, with its own format.
      const routed = path.replace(/\/{2,}/g, '/');
      // A session page and its reservation form are the site's: they answer people, in HTML.
      const sitePage =
        (m === 'GET' && /^\/stages\/[^/]+\/?$/.test(routed)) ||
        (m === 'POST' && /^\/stages\/[^/]+\/reservation\/?$/.test(routed));
      if (routed.startsWith('/api/mcp') || routed.startsWith('/api/oauth')) expect(res.statusCode).toBeLessThan(500);
      else if (m !== 'HEAD') expectCleanAnswer(res, sitePage ? 'page' : 'problem');
    });
  });
});
