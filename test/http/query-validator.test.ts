import fc from 'fast-check';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { SearchQueryStringSchema, searchFields, toNotBeforeFrom } from '../../src/catalogue/schemas.js';
import { memoizedQueryValidator } from '../../src/http/query-validator.js';
import { buildTestApp } from '../helpers/app.js';

const route = { method: 'GET', url: '/api/stages', httpPart: 'querystring' } as const;
const fast = memoizedQueryValidator(
  searchFields,
  SearchQueryStringSchema,
  toNotBeforeFrom,
)({
  ...route,
  schema: SearchQueryStringSchema,
});
const reference = validatorCompiler({ ...route, schema: SearchQueryStringSchema });

/** Values each parameter gets: good ones in several spellings, bad ones, and hostile text. */
const VALUES: Record<string, string[]> = {
  city: ['lyon', 'Saint-Étienne', ' st etienne ', '69003', '', '!!!', '\u200b', 'x'.repeat(101), 'Paris 15e'],
  dept: ['69', '1', '01', ' 2a ', '2B', '974', '20', '975', '', 'rhône', '00'],
  region: ['rhone', 'Île-de-France', '', '---', 'corse'],
  from: ['2030-03-05', '2030-02-30', '2030-3-5', '', 'tomorrow', '2029-12-31'],
  to: ['2030-03-05', '2030-01-01', '2031-01-01', '', '2030-13-01'],
  maxPrice: ['250', '249.90', '0', '100000', '100000.5', '1e3', '.5', '250,50', '-1', '', ' 250 '],
  limit: ['5', '05', '100', '101', '0', '2.5', '', ' 7 ', 'abc'],
  includeUnavailable: ['true', 'TRUE', 'false', '1', '0', '', 'yes'],
  near: ['Villeurbanne', '69100', '45.77,4.88', '', '???'],
  radiusKm: ['10', '200', '201', '0', '', '50'],
  sort: ['date', 'price', 'distance', '', 'Price', 'random'],
  days: ['saturday', 'SAMEDI', 'fri,sat', ' sam , ven ', '', 'weekend', 'lundi,,mardi'],
  cursor: ['eyJ2IjoxfQ', '', 'not a cursor!', 'a'.repeat(401)],
};
const NAMES = Object.keys(VALUES);

const parameterValue = (name: string) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...(VALUES[name] as string[])), weight: 8 },
    { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
    // A repeated parameter arrives as a list.
    { arbitrary: fc.array(fc.constantFrom(...(VALUES[name] as string[])), { minLength: 2, maxLength: 2 }), weight: 1 },
  );
const queryString = fc
  .tuple(
    fc.record(Object.fromEntries(NAMES.map((n) => [n, parameterValue(n)])), { requiredKeys: [] }),
    fc.dictionary(fc.constantFrom('page', '_', 'constructor', '__proto__', 'toString', 'valueOf'), fc.string(), {
      maxKeys: 2,
    }),
  )
  .map(([known, other]) => {
    // Unknown parameters first or last, as a query string may have them; a null-prototype object
    // as the query-string parser gives.
    const q = Object.create(null) as Record<string, unknown>;
    Object.assign(q, other, known);
    return q;
  });

describe('memoized query-string validation (GET /api/stages)', () => {
  it('gives exactly what SearchQueryStringSchema gives: the same value, key for key and in order, or the same error', () => {
    fc.assert(
      fc.property(queryString, (q) => {
        const expected = reference(q) as { value?: Record<string, unknown>; error?: Error };
        // Twice: the second answer comes from what the first remembered.
        for (let i = 0; i < 2; i++) {
          const got = fast(q) as { value?: Record<string, unknown>; error?: Error };
          if (expected.error) {
            expect(got.value).toBeUndefined();
            expect(got.error?.message).toBe(expected.error.message);
            expect(JSON.stringify(got.error)).toBe(JSON.stringify(expected.error));
          } else {
            expect(got.error).toBeUndefined();
            expect(got.value).toStrictEqual(expected.value);
            expect(Object.keys(got.value ?? {})).toEqual(Object.keys(expected.value ?? {}));
          }
        }
      }),
      { numRuns: 4000, seed: 12 },
    );
  });

  it('shares no mutable list between requests: a parsed days list is frozen', () => {
    const first = fast({ days: 'fri,sat' }) as { value: { days: number[] } };
    expect(first.value.days).toEqual([5, 6]);
    expect(() => first.value.days.push(0)).toThrow(TypeError);
    expect((fast({ days: 'fri,sat' }) as { value: { days: number[] } }).value.days).toEqual([5, 6]);
  });

  it('refuses to validate anything but a query string', () => {
    const compile = memoizedQueryValidator(searchFields, SearchQueryStringSchema, toNotBeforeFrom);
    expect(() => compile({ ...route, httpPart: 'body', schema: SearchQueryStringSchema })).toThrow(/query strings/);
  });

  it('GET /api/stages answers through it: a remembered value, then the same 400 for a bad one', async () => {
    const t = await buildTestApp();
    try {
      const twice = [
        await t.app.inject('/api/stages?dept=1&limit=05'),
        await t.app.inject('/api/stages?dept=1&limit=5'),
      ];
      for (const res of twice) {
        expect(res.statusCode).toBe(200);
        expect(res.json().description).toContain('département 01');
        expect(res.json().description).toContain('au plus 5 par page');
      }
      const bad = await t.app.inject('/api/stages?dept=69&from=2030-02-01&to=2030-01-01');
      expect(bad.statusCode).toBe(400);
      expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(bad.json().errors).toEqual([
        { name: 'to', reason: 'to (2030-01-01) must not be before from (2030-02-01)' },
      ]);
    } finally {
      await t.close();
    }
  });
});
