import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/admin/api-keys.js';
import { buildApp } from '../../../src/app.js';
import { replaceCatalogue } from '../../../src/catalogue/repository.js';
import { frozenClock, testConfig } from '../../helpers/app.js';
import { claimedAgent } from '../../helpers/claim.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../../helpers/fixtures.js';
import { expectCleanAnswer, fuzz, hostileText } from '../../helpers/fuzz.js';

/*
 * Every GET of the public and operator APIs, as /openapi.json lists them with their parameters:
 * any text in any parameter is answered 200, or 400 naming a parameter that was sent (404 when
 * the path's id names nothing) — never a 500, and no error in the log. Values shaped like dates,
 * timestamps, cursors and UUIDs, with impossible numbers in them, reach past the patterns to
 * what the database would be asked.
 */

type Operation = { path: string; query: string[]; pathParams: string[] };

let db: TestDatabase;
let app: Awaited<ReturnType<typeof buildApp>>;
let operations: Operation[];
let headers: Record<string, string>;
/** A claimed agent's token ("hold alerts"), for the routes only such agents may call. */
let agentHeaders: Record<string, string>;
/** The credentials a route takes: a claimed agent's token on theirs, the admin key everywhere else. */
const headersFor = (path: string) => (/^\/api\/(holds|watches)\b/.test(path) ? agentHeaders : headers);
const errorLines: string[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
  app = await buildApp(testConfig(), {
    database: db.database,
    clock: frozenClock(FIXTURE_NOW),
    logger: {
      level: 'error',
      stream: { write: (line: string) => void errorLines.push(line) },
    },
  });
  const { key } = await createApiKey(db.database.db, { name: 'fuzz', role: 'admin', centreId: null });
  headers = { authorization: `Bearer ${key}` };
  agentHeaders = { authorization: `Bearer ${(await claimedAgent(app, 'fuzz@example.org', 'hold alerts')).token}` };
  const doc = (await app.inject('/openapi.json')).json() as {
    paths: Record<string, { get?: { parameters?: { in: string; name: string }[] } }>;
  };
  operations = Object.entries(doc.paths)
    .filter(([path, item]) => item.get?.parameters?.length && path !== '/api/stages/events') // a stream never ends
    .map(([path, item]) => {
      const parameters = item.get?.parameters ?? [];
      return {
        path,
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
      };
    });
});
afterAll(async () => {
  await app.close();
  await db.dispose();
});

const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
const date = fc.tuple(digits(4), digits(2), digits(2)).map(([y, m, d]) => `${y}-${m}-${d}`);
const timestamp = fc
  .tuple(date, digits(2), digits(2), digits(2), digits(3))
  .map(([day, h, m, s, ms]) => `${day}T${h}:${m}:${s}.${ms}Z`);
const uuidLike = fc.oneof(fc.uuid(), fc.stringMatching(/^[0-9a-f-]{36}$/), fc.constant('-'.repeat(36)));
/** What a parameter may be sent: anything, or something shaped like what the API takes. */
const value: fc.Arbitrary<string> = fc.oneof(
  hostileText,
  date,
  timestamp,
  uuidLike,
  { arbitrary: fc.tuple(fc.oneof(date, timestamp), uuidLike).map(([d, id]) => `${d}.${id}`), weight: 3 },
  fc.constantFrom('0000-01-01', '9999-12-31', '2026-13-45', '2026-02-29', '2026-99-99T99:99:99.999Z'),
  fc.integer().map(String),
  fc.constantFrom(SESSIONS.lyonMar5.id, CENTRES.lyon.id, 'SRP-7K4Q-2M9X', 'scheduled', 'confirmed', '10'),
);

const pairs = (names: string[], values: string[]) => Object.fromEntries(names.map((name, i) => [name, values[i]]));

describe('fuzz: the query parameters of every GET', () => {
  it('lists the admin and public reads', () => {
    expect(operations.map((o) => o.path)).toEqual(
      expect.arrayContaining(['/api/stages', '/api/stages/{id}', '/api/admin/sessions', '/api/admin/reservations']),
    );
  });

  it('refuses the drill’s malformed cursors and dates with a 400 naming each', async () => {
    const id = SESSIONS.lyonMar5.id;
    const cases: [string, string][] = [
      [`/api/admin/sessions?cursor=2026-13-45.${id}`, 'cursor'],
      [`/api/admin/sessions?cursor=2026-12-01.${'-'.repeat(36)}`, 'cursor'],
      ['/api/admin/sessions?from=0000-01-01', 'from'],
      ['/api/admin/sessions?to=2026-02-30', 'to'],
      [`/api/admin/reservations?cursor=2026-99-99T99:99:99.999Z.${id}`, 'cursor'],
      [`/api/admin/reservations?cursor=0000-01-01T00:00:00.000Z.${id}`, 'cursor'],
    ];
    for (const [url, name] of cases) {
      const res = await app.inject({ url, headers });
      expect(res.statusCode, `${url} ${res.body}`).toBe(400);
      expect(res.json().errors, url).toEqual([{ name, reason: expect.any(String) }]);
    }
    expect(errorLines).toEqual([]);
  });

  it('answers any value of any parameter with 200, or a 400 naming it, never a 500', async () => {
    const request = fc.integer({ min: 0, max: 1000 }).chain((pick) => {
      const op = operations[pick % operations.length] as Operation;
      const names = [...op.query, ...op.pathParams];
      const sent = fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 });
      return sent.chain((chosen) =>
        fc.record({ op: fc.constant(op), values: fc.tuple(...chosen.map(() => value)).map((v) => pairs(chosen, v)) }),
      );
    });
    await fuzz(request, async ({ op, values }) => {
      let path = op.path;
      for (const name of op.pathParams)
        path = path.replace(`{${name}}`, encodeURIComponent(values[name] ?? SESSIONS.lyonMar5.id));
      const query = op.query
        .filter((name) => values[name] !== undefined)
        .map((name) => `${name}=${encodeURIComponent(values[name] as string)}`)
        .join('&');
      const res = await app.inject({ url: query ? `${path}?${query}` : path, headers: headersFor(op.path) });
      expectCleanAnswer(res, 'problem');
      const given = Object.keys(values);
      const byId = op.pathParams.length > 0;
      expect(byId ? [200, 400, 404] : [200, 400], `${res.statusCode} ${res.body}`).toContain(res.statusCode);
      if (res.statusCode === 400) {
        const errors = (res.json().errors ?? []) as { name: string }[];
        expect(errors.length, res.body).toBeGreaterThan(0);
        for (const e of errors) expect(given, res.body).toContain(e.name);
      }
    });
    expect(errorLines).toEqual([]);
  });
});
