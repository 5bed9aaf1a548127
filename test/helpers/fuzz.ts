import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { DOCS_CSP } from '../../src/docs/routes.js';
import { isPublicApiPath } from '../../src/http/cors.js';
import { API_CSP, HTML_CSP } from '../../src/http/security-headers.js';

/*
 * Property-based fuzzing of every input surface. `npm test` runs each property with a fixed seed
 * and a few hundred runs (fast, reproducible); `npm run fuzz` sets FUZZ_RUNS high and, unless
 * FUZZ_SEED is given, a random seed, printed so that a failure can be replayed with FUZZ_SEED=….
 *
 * Adding a surface (the operator API, the site's forms…): write test/system/fuzz/<surface>.test.ts that
 * builds requests with fast-check arbitraries and checks every answer with `expectCleanAnswer`
 * and the door's format ('problem' for REST and the admin API, 'oauth', 'jsonrpc').
 */

const randomSeed = process.env.FUZZ_RUNS !== undefined && process.env.FUZZ_SEED === undefined;
export const FUZZ_SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : randomSeed
    ? Date.now() % 2 ** 31
    : 20_261_122;
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 150);
if (randomSeed)
  console.log(`fuzz: seed ${FUZZ_SEED}, ${FUZZ_RUNS} runs per property (replay with FUZZ_SEED=${FUZZ_SEED})`);

/** Runs an async property with the suite's seed and run count. */
export async function fuzz<T>(arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>): Promise<void> {
  await fc.assert(fc.asyncProperty(arbitrary, check), { seed: FUZZ_SEED, numRuns: FUZZ_RUNS, endOnFailure: true });
}

/** Text as hostile callers send it: any Unicode, control characters, quotes, SQL and path bits. */
export const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u200b',
    '!!!',
    "'; drop table stage_sessions; --",
    '../../etc/passwd',
    '%00',
    '%',
    '%E0%A4%A',
    '<script>alert(1)</script>',
    '{"$ne":null}',
    '9'.repeat(400),
    '-1',
    '1e309',
    'NaN',
    'true',
    '2026-02-30',
    '0x10',
    'é'.repeat(300),
  ),
);

/** Values of any JSON type, for typed surfaces (MCP arguments, OAuth JSON). */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  hostileText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
);

// What an error answer must never show: a stack frame, a source path, SQL, driver internals.
const LEAK = [
  /\bat [\w.<>]+ \(/, // stack frame
  /node_modules|\/work\/|\/src\/|\.ts:\d+/,
  /\b(select|insert into|update \w+ set|delete from)\b.+\b(from|where|values)\b/i,
  /\b(drizzle|pglite|postgres|ioredis|fastify|zod)\b.*error/i,
  /FST_ERR|HPE_|ERR_/,
];

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** The policy an answer must carry: the API's, or for HTML the site's (or the API reference's). */
function expectedPolicies(type: string): string[] {
  return type.startsWith('text/html') ? [HTML_CSP, DOCS_CSP] : [API_CSP];
}

export type Door = 'problem' | 'oauth' | 'jsonrpc' | 'page';

/**
 * What every answer promises: never a 5xx, the security headers, CORS (on the public API) and a request id; an error
 * in its door's documented format, with no internals and no echo of `secrets`.
 */
export function expectCleanAnswer(
  res: LightMyRequestResponse,
  door: Door,
  secrets: string[] = [],
  // Registration answers CORS only to listed browser origins (README, "Agent authentication").
  { cors = true }: { cors?: boolean } = {},
): void {
  const where = `${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, where).toBeLessThan(500);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers[name], name).toBe(value);
  const csp = res.headers['content-security-policy'];
  expect(expectedPolicies(String(res.headers['content-type'] ?? '')), 'content-security-policy').toContain(csp);
  expect(res.headers['x-request-id'], 'x-request-id').toMatch(/^[0-9a-f-]{36}$/);
  // CORS on the public API only: pages, private links and unknown paths elsewhere carry none.
  const url = (res.raw.req as { url?: string }).url ?? '';
  if (cors)
    expect(res.headers['access-control-allow-origin'], `CORS on ${url}`).toBe(isPublicApiPath(url) ? '*' : undefined);
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode >= 400) {
    if (door === 'problem') {
      expect(type, where).toMatch(/^application\/problem\+json/);
      const body = res.json();
      expect(body, where).toMatchObject({ type: 'about:blank', status: res.statusCode });
      expect(typeof body.title).toBe('string');
      expect(typeof body.code).toBe('string');
    } else if (door === 'page') {
      // The site answers people: an HTML page saying what went wrong, in French.
      expect(type, where).toMatch(/^text\/html/);
      expect(res.body, where).toContain('<html lang="fr">');
    } else if (door === 'oauth') {
      expect(type, where).toMatch(/^application\/json/);
      const body = res.json();
      expect(Object.keys(body).sort(), where).toEqual(['error', 'error_description']);
      expect(body.error, where).toMatch(/^[a-z_]+$/);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    for (const pattern of LEAK) expect(res.body, `${pattern} in ${where}`).not.toMatch(pattern);
  }
  if (door === 'jsonrpc' && res.body !== '') {
    expect(type, where).toMatch(/^application\/json/);
    const body = res.json();
    for (const message of Array.isArray(body) ? body : [body]) {
      expect(message.jsonrpc, where).toBe('2.0');
      if (message.error) {
        expect(Number.isInteger(message.error.code), where).toBe(true);
        expect(typeof message.error.message).toBe('string');
        expect(message.error.message.length, where).toBeLessThan(1000);
        for (const pattern of LEAK) expect(message.error.message, `${pattern} in ${where}`).not.toMatch(pattern);
      }
      if (message.result?.isError)
        for (const block of message.result.content)
          for (const pattern of LEAK) expect(block.text, `${pattern} in ${where}`).not.toMatch(pattern);
    }
  }
  for (const secret of secrets) if (secret.length >= 12) expect(res.body, 'echoed secret').not.toContain(secret);
}
