import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLE_TOPICS } from '../../../src/articles/articles.js';
import { resolveOrigin } from '../../../src/catalogue/locations.js';
import { CENTRES, SESSIONS } from '../../helpers/fixtures.js';
import { FUZZ_SEED } from '../../helpers/fuzz.js';
import { type McpTestServer, startMcpTestServer } from '../../helpers/mcp.js';

/*
 * Arguments as clients really send them — language models and the Inspector write numbers for
 * codes, numbers as strings, "true", and "" for fields they leave empty — get one set of rules on
 * MCP and REST, and the JSON Schemas published by tools/list say exactly what is accepted.
 */

let server: McpTestServer;
let client: Client;
beforeAll(async () => {
  server = await startMcpTestServer();
  client = new Client({ name: 'arguments-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(server.endpoint));
});
afterAll(async () => {
  await client.close();
  await server.close();
});

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: unknown;
  content: Array<{ type: string; text: string }>;
}
const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;
const text = (r: ToolAnswer) => r.content.map((c) => c.text).join('\n');
/** A refusal of the arguments themselves, as opposed to "no such session". */
const refusedArguments = (r: ToolAnswer) => r.isError === true && text(r).startsWith('Input validation error');

describe('what clients send → what search_stages and GET /api/stages do with it', () => {
  // [arguments as JSON, the same as a query string (undefined: no query-string equivalent), refused field or null]
  const table: Array<[Record<string, unknown>, string | undefined, string | null]> = [
    [{ dept: 69 }, 'dept=69', null],
    [{ dept: '69' }, 'dept=69', null],
    [{ dept: 1 }, 'dept=1', null],
    [{ dept: '01' }, 'dept=01', null],
    [{ dept: '2a' }, 'dept=2a', null],
    [{ dept: 974 }, 'dept=974', null],
    [{ dept: ' 69 ' }, 'dept=%2069%20', null],
    [{ dept: 20 }, 'dept=20', 'dept'],
    [{ dept: 999 }, 'dept=999', 'dept'],
    [{ dept: 69.5 }, 'dept=69.5', 'dept'],
    [{ dept: 'xx' }, 'dept=xx', 'dept'],
    [{ limit: '5' }, 'limit=5', null],
    [{ limit: 5 }, 'limit=5', null],
    [{ limit: '05' }, 'limit=05', null],
    [{ limit: '' }, 'limit=', null],
    [{ limit: '0' }, 'limit=0', 'limit'],
    [{ limit: 101 }, 'limit=101', 'limit'],
    [{ limit: '2.5' }, 'limit=2.5', 'limit'],
    [{ limit: 'ten' }, 'limit=ten', 'limit'],
    [{ maxPrice: '250' }, 'maxPrice=250', null],
    [{ maxPrice: 229.99 }, 'maxPrice=229.99', null],
    [{ maxPrice: '229.99' }, 'maxPrice=229.99', null],
    [{ maxPrice: '' }, 'maxPrice=', null],
    [{ maxPrice: '-1' }, 'maxPrice=-1', 'maxPrice'],
    [{ maxPrice: -1 }, 'maxPrice=-1', 'maxPrice'],
    [{ maxPrice: 'cheap' }, 'maxPrice=cheap', 'maxPrice'],
    [{ maxPrice: '100001' }, 'maxPrice=100001', 'maxPrice'],
    [{ includeUnavailable: 'true' }, 'includeUnavailable=true', null],
    [{ includeUnavailable: true }, 'includeUnavailable=true', null],
    [{ includeUnavailable: 'TRUE' }, 'includeUnavailable=TRUE', null],
    [{ includeUnavailable: '1' }, 'includeUnavailable=1', null],
    [{ includeUnavailable: '0' }, 'includeUnavailable=0', null],
    [{ includeUnavailable: 'false' }, 'includeUnavailable=false', null],
    [{ includeUnavailable: '' }, 'includeUnavailable=', null],
    [{ includeUnavailable: 'yes' }, 'includeUnavailable=yes', 'includeUnavailable'],
    [{ includeUnavailable: 1 }, undefined, 'includeUnavailable'],
    [{ city: '' }, 'city=', null],
    [{ city: 'saint etienne' }, 'city=saint%20etienne', null],
    [{ city: '!!!' }, 'city=!!!', 'city'],
    [{ city: 'x'.repeat(101) }, `city=${'x'.repeat(101)}`, 'city'],
    [{ city: 69 }, undefined, 'city'],
    [{ from: '2030-03-06', to: '' }, 'from=2030-03-06&to=', null],
    [{ from: '2030-02-30' }, 'from=2030-02-30', 'from'],
    [{ from: 20300306 }, undefined, 'from'],
    [{ from: '2030-03-10', to: '2030-03-09' }, 'from=2030-03-10&to=2030-03-09', 'to'],
    [{ near: 'Villeurbanne', radiusKm: '50' }, 'near=Villeurbanne&radiusKm=50', null],
    [{ near: 69003, radiusKm: 50 }, undefined, 'near'],
    [{ near: 'Lyon 3e', radiusKm: 201 }, 'near=Lyon%203e&radiusKm=201', 'radiusKm'],
    [{ near: 'Lyon', radiusKm: '0' }, 'near=Lyon&radiusKm=0', 'radiusKm'],
    [{ sort: 'price' }, 'sort=price', null],
    [{ sort: 'cheapest' }, 'sort=cheapest', 'sort'],
    [{ days: 'samedi' }, 'days=samedi', null],
    [{ days: ['sat', 'FRI'] }, undefined, null],
    [{ days: ['fri,SAT'] }, undefined, null],
    [{ days: 'sat,' }, 'days=sat,', 'days'],
    [{ days: 'sat,,sun' }, 'days=sat,,sun', 'days'],
    [{ days: 'sat,fri' }, 'days=sat,fri', null],
    [{ days: 'weekend' }, 'days=weekend', 'days'],
    [{ days: [] }, undefined, 'days'],
    [{ cursor: 'a b' }, 'cursor=a%20b', 'cursor'],
    [
      {
        dept: '',
        city: '',
        region: '',
        from: '',
        to: '',
        maxPrice: '',
        limit: '',
        includeUnavailable: '',
        near: '',
        radiusKm: '',
        sort: '',
        days: '',
        cursor: '',
      },
      'dept=&city=&region=&from=&to=&maxPrice=&limit=&includeUnavailable=&near=&radiusKm=&sort=&days=&cursor=',
      null,
    ],
  ];

  it.each(table)('%j (REST: ?%s) → refused field %s', async (args, query, refused) => {
    const mcp = await call('search_stages', args);
    const rest = query === undefined ? undefined : await server.app.inject(`/api/stages?${query}`);
    if (refused === null) {
      expect(mcp.isError ?? false, text(mcp)).toBe(false);
      if (rest) {
        expect(rest.statusCode, rest.body).toBe(200);
        // One implementation: the very same answer through both doors.
        expect(mcp.structuredContent).toEqual(rest.json());
      }
    } else {
      expect(refusedArguments(mcp), text(mcp)).toBe(true);
      expect(text(mcp)).toContain(`${refused}: `);
      if (rest) {
        expect(rest.statusCode, rest.body).toBe(400);
        expect(rest.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(rest.json().errors.map((e: { name: string }) => e.name)).toEqual([refused]);
      }
    }
  });

  it('filters by the number a model sent exactly as by the code a person typed', async () => {
    const byNumber = (await call('search_stages', { dept: 1, limit: '5', includeUnavailable: 'true' }))
      .structuredContent as { data: Array<{ id: string }> };
    expect(byNumber.data.map((s) => s.id)).toEqual([SESSIONS.bourgMar14.id]);
  });

  it('refuses an unknown argument by name, suggesting the right one, instead of searching all of France', async () => {
    const r = await call('search_stages', { department: '69' });
    expect(refusedArguments(r)).toBe(true);
    expect(text(r)).toContain('"department" (did you mean dept?)');
    expect(text(r)).toContain(
      'the arguments are city, dept, region, from, to, maxPrice, limit, includeUnavailable, near, radiusKm, sort, days, cursor',
    );
    const two = await call('search_stages', { dept: '69', max_price: 250, foo: 1 });
    expect(text(two)).toContain('"max_price" (did you mean maxPrice?)');
    expect(text(two)).toContain('"foo"');
    const other = await call('get_centre', { idOrSlug: 'centre-lyon', include_unavailable: true });
    expect(text(other)).toContain('"include_unavailable" (did you mean includeUnavailable?)');
  });

  it('keeps ignoring unknown query parameters on REST, where caches and forms add their own', async () => {
    const res = await server.app.inject('/api/stages?department=69&_=123');
    expect(res.statusCode).toBe(200);
  });

  it('takes the same spellings in the other tools', async () => {
    const centre = await call('get_centre', { idOrSlug: CENTRES.lyon.id, limit: '1', includeUnavailable: 'true' });
    expect(centre.isError ?? false, text(centre)).toBe(false);
    expect((centre.structuredContent as { sessions: unknown[] }).sessions).toHaveLength(1);
    const articles = await call('list_articles', { topic: '', query: '', limit: '2' });
    expect((articles.structuredContent as { count: number }).count).toBe(2);
    expect(refusedArguments(await call('check_availability', { sessionId: '' }))).toBe(true);
    expect(refusedArguments(await call('get_article', { slug: 'x', lang: 'fr' }))).toBe(true);
  });
});

describe('the published input schemas say exactly what is accepted', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);

  const anyJson = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1000, max: 2000 }),
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.string({ maxLength: 12 }),
    fc.array(fc.integer(), { maxLength: 2 }),
    fc.constant({}),
  );
  /** Mostly forms that are accepted, sometimes near misses, or anything at all. */
  const field = (valid: fc.Arbitrary<unknown>, nearMisses: unknown[]) =>
    fc.oneof(
      { arbitrary: valid, weight: 6 },
      { arbitrary: fc.constantFrom(...nearMisses), weight: 2 },
      { arbitrary: anyJson, weight: 1 },
      { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 1 },
    );
  const fields: Record<string, fc.Arbitrary<unknown>> = {
    city: field(fc.constantFrom('lyon', 'saint etienne', '', 'Île', 'x'.repeat(100), `${'é'.repeat(100)}`), [
      '!!!',
      '\u200b',
      '   ',
      'x'.repeat(101),
      `${'é'.repeat(100)} `,
      '𝐀',
    ]),
    region: field(fc.constantFrom('rhone', 'Île-de-France', ''), ['---', '']),
    dept: field(
      fc.oneof(
        fc.constantFrom('69', '1', '01', '2a', '2B', '974', '976', ' 69 ', ''),
        fc.integer({ min: 1, max: 95 }),
        fc.constantFrom(971, 974, 976),
      ),
      ['975', '20', '00', '099', '6 9', 20, 0, 96, 975, 977, 69.5, '2C'],
    ),
    from: field(
      fc.oneof(
        fc.constantFrom('2030-03-06', '2024-02-29', ''),
        fc
          .date({ min: new Date('1999-01-01'), max: new Date('2040-12-31'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10)),
      ),
      ['2030-02-30', '2023-02-29', '20300306', '2030-3-6', ' 2030-03-06', 20300306],
    ),
    to: field(fc.constantFrom('2030-03-10', '2041-01-01', ''), ['2030-13-01', '2030-03-32']),
    maxPrice: field(
      fc.oneof(
        fc.double({ min: 0, max: 100_000, noNaN: true }),
        fc.constantFrom('250', '249.90', '100000', '100000.0', '', ' 250 ', '0', '007'),
      ),
      ['-1', -1, '100000.01', 100000.5, '.5', '1e3', 'cheap', '250,50'],
    ),
    limit: field(fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom('5', '05', ' 7 ', '100', '')), [
      0,
      101,
      '0',
      '101',
      '2.5',
      2.5,
      '1e1',
      '-3',
    ]),
    includeUnavailable: field(fc.oneof(fc.boolean(), fc.constantFrom('true', 'TRUE', 'False', '1', '0', '')), [
      'yes',
      ' true',
      1,
      0,
      'on',
    ]),
    near: field(fc.constantFrom('Villeurbanne', '69003', 'Lyon 3e', 'st etienne', '45.77,4.88', ''), [
      'Nowhereville',
      '91,4',
      '!!!',
      69100,
      'x'.repeat(101),
    ]),
    radiusKm: field(fc.oneof(fc.integer({ min: 1, max: 200 }), fc.constantFrom('10', ' 50 ', '200', '')), [
      0,
      201,
      '0',
      '7.5',
      7.5,
    ]),
    sort: field(fc.constantFrom('date', 'price', 'distance', ''), ['Price', 'cheapest', 1]),
    days: field(
      fc.oneof(
        fc.constantFrom('saturday', 'samedi', 'SAT', 'sam', 'fri, sat', ''),
        fc.array(fc.constantFrom('lundi', 'Tue', 'mer'), { minLength: 1, maxLength: 3 }),
      ),
      ['weekend', 'sa', 'sat,', [], ['sat', 5], 6],
    ),
    cursor: field(fc.constantFrom(''), ['a b', '+/=', 'x'.repeat(401)]),
    sessionId: field(fc.oneof(fc.uuid(), fc.constantFrom(SESSIONS.lyonMar5.id, SESSIONS.lyonMar5.id.toUpperCase())), [
      '',
      'abc',
      `urn:uuid:${SESSIONS.lyonMar5.id}`,
      `${SESSIONS.lyonMar5.id} `,
    ]),
    idOrSlug: field(fc.constantFrom('centre-lyon', CENTRES.lyon.id, 'x'.repeat(200), ' centre-lyon '), [
      '',
      '  ',
      'x'.repeat(201),
    ]),
    topic: field(fc.constantFrom(...ARTICLE_TOPICS, ''), ['cooking', 'Permis-Probatoire']),
    query: field(fc.constantFrom('48N', '', 'permis probatoire', 'x'.repeat(200)), ['x'.repeat(201)]),
    slug: field(fc.constantFrom('permis-probatoire-lettre-48n-stage-obligatoire', 'nope'), ['', ' ']),
  };
  /** Now and then an argument the tool does not have, as models invent them. */
  const stray = fc.oneof(
    { arbitrary: fc.constant({}), weight: 8 },
    { arbitrary: fc.constantFrom({ department: '69' }, { max_price: 250 }, { lang: 'fr' }), weight: 1 },
  );
  const toolFields: Record<string, string[]> = {
    search_stages: [
      'city',
      'region',
      'dept',
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
    ],
    check_availability: ['sessionId'],
    get_centre: ['idOrSlug', 'limit', 'includeUnavailable'],
    list_articles: ['topic', 'query', 'limit'],
    get_article: ['slug'],
  };

  /** The one rule JSON Schema cannot state: `to` must not be before `from` (said in to's description). */
  const toBeforeFrom = (args: Record<string, unknown>) =>
    typeof args.from === 'string' &&
    typeof args.to === 'string' &&
    args.from !== '' &&
    args.to !== '' &&
    args.to < args.from;

  /**
   * Arguments of the right form that the search itself cannot use (an unknown place, distance or a
   * radius without a place, a cursor not handed out): a 400 on REST, an error result on MCP that
   * is not a schema refusal.
   */
  const unusable = (args: Record<string, unknown>) => {
    const given = (k: string) => args[k] !== undefined && args[k] !== '';
    if (given('near')) {
      try {
        resolveOrigin(String(args.near));
      } catch {
        return true;
      }
    }
    return given('cursor') || (!given('near') && (given('radiusKm') || args.sort === 'distance'));
  };

  it.each(Object.keys(toolFields))('%s: accepted exactly when valid against its inputSchema', async (tool) => {
    const { tools } = await client.listTools();
    const published = tools.find((t) => t.name === tool)?.inputSchema;
    expect(published?.additionalProperties).toBe(false);
    const validate = ajv.compile(published as object);
    // A few arguments at a time, as callers send them: with thirteen, all at once are rarely all valid.
    const someArguments = fc
      .shuffledSubarray(toolFields[tool]!, { maxLength: Math.min(5, toolFields[tool]!.length) })
      .chain((names) => fc.record(Object.fromEntries(names.map((n) => [n, fields[n]!])), { requiredKeys: [] }));
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(someArguments, stray, async (generated, extra) => {
        // What goes over the wire is JSON: -0 becomes 0, and so on.
        const args = JSON.parse(JSON.stringify({ ...generated, ...extra })) as Record<string, unknown>;
        const schemaValid = validate(args) && !toBeforeFrom(args);
        const answer = await call(tool, args);
        expect(!refusedArguments(answer), `${JSON.stringify(args)} → ${text(answer)}`).toBe(schemaValid);
        if (schemaValid) accepted++;
        else refused++;
      }),
      { seed: FUZZ_SEED, numRuns: 200 },
    );
    // Both sides of the rule were exercised.
    expect(accepted).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  });

  it('GET /api/stages follows the same rules for every string it can be sent', async () => {
    const { tools } = await client.listTools();
    const validate = ajv.compile(tools.find((t) => t.name === 'search_stages')?.inputSchema as object);
    const names = toolFields.search_stages!;
    const asText = (arb: fc.Arbitrary<unknown>) =>
      fc.oneof(
        arb.filter((v): v is string => typeof v === 'string'),
        fc.string({ maxLength: 20 }),
      );
    const shape = Object.fromEntries(names.map((n) => [n, asText(fields[n]!)]));
    await fc.assert(
      fc.asyncProperty(fc.record(shape, { requiredKeys: [] }), async (args) => {
        // A query string carries well-formed text only: a lone surrogate would arrive as U+FFFD.
        fc.pre(Object.values(args).every((v) => !/\p{Cs}/u.test(v as string)));
        const query = new URLSearchParams(args as Record<string, string>).toString();
        const res = await server.app.inject(`/api/stages?${query}`);
        const schemaValid = validate(args) && !toBeforeFrom(args);
        expect(res.statusCode, `${query} → ${res.body.slice(0, 300)}`).toBe(schemaValid && !unusable(args) ? 200 : 400);
      }),
      { seed: FUZZ_SEED, numRuns: 200 },
    );
  });
});
