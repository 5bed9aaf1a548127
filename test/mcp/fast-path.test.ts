import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ARTICLE_TOPICS } from '../../src/articles/articles.js';
import { McpAnswerCache } from '../../src/mcp/fast-path.js';
import { MCP_KEPT_TOOLS, MCP_TOOL_NAMES } from '../../src/mcp/server.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/**
 * The fast path must answer byte for byte what the SDK answers. Two apps on one database and one
 * clock: `fast` (MCP_ANSWER_CACHE on, the default) and `sdk` (off: every request through the SDK).
 * Each generated request is sent to `fast` with one id (the SDK answers it and the answer may be
 * kept), then with another id to both: status, headers and body must be identical.
 */

const MODERN = '2026-07-28';
const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Call {
  headers: Record<string, string>;
  message: Record<string, unknown>;
}

const sessionIds = [...Object.values(SESSIONS).map((s) => s.id), '99999999-0000-4000-8000-000000000000', 'not-a-uuid'];
const centreKeys = [...Object.values(CENTRES).flatMap((c) => [c.id, c.slug]), 'CENTRE-LYON', 'nowhere', ''];

/** Arguments, mostly valid, sometimes not (wrong types, bounds, unknown names): those must reach the SDK. */
const optional = (record: Record<string, fc.Arbitrary<unknown>>) => fc.record(record, { requiredKeys: [] });
const unknownArgument = fc.oneof(
  { arbitrary: fc.constant({}), weight: 12 },
  { arbitrary: fc.constant({ department: '69' }), weight: 1 },
);
const withUnknown = (args: fc.Arbitrary<Record<string, unknown>>) =>
  fc.tuple(args, unknownArgument).map(([a, u]) => ({ ...a, ...u }));

const TOOL_ARGS: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  search_stages: withUnknown(
    optional({
      dept: fc.constantFrom('69', '75', '2A', '974', '01', 1, 69, '', '00', 'rhône'),
      city: fc.constantFrom('lyon', 'Paris', 'saint-etienne', 'Saint-Étienne', 'nowhere', '', 3),
      region: fc.constantFrom('rhone', 'Île-de-France', 'corse', 'Atlantis', ''),
      from: fc.constantFrom('2030-03-05', '2030-03-12', '2030-01-01', '2030-02-30', 'tomorrow', ''),
      to: fc.constantFrom('2030-03-06', '2030-03-31', '2030-03-01', '2031-01-01', ''),
      maxPrice: fc.constantFrom(100, 239, 250.5, '250', -1, 'cheap', ''),
      limit: fc.constantFrom(1, 2, '3', 10, 0, 101, 'many', 2.5),
      includeUnavailable: fc.constantFrom(true, false, 'true', '1', '0', 'maybe', ''),
    }),
  ),
  check_availability: withUnknown(optional({ sessionId: fc.constantFrom(...sessionIds, 42) })),
  check_eligibility: withUnknown(
    optional({
      lastCourseEndedOn: fc.constantFrom('2029-05-01', '2031-01-01', '2029-02-30', ''),
      letter48nReceivedOn: fc.constantFrom('2030-01-10', '2029-10-31', 'yesterday'),
      pointsLeft: fc.constantFrom(0, 3, 12, 13, '4'),
      letter48si: fc.constantFrom(true, false, 'yes'),
      near: fc.constantFrom('Lyon', '45,4', 'nowhere'),
    }),
  ),
  get_centre: withUnknown(
    optional({
      idOrSlug: fc.constantFrom(...centreKeys),
      limit: fc.constantFrom(1, 3, '2', 0, 51),
      includeUnavailable: fc.constantFrom(true, false, 'yes'),
    }),
  ),
  list_articles: withUnknown(
    optional({
      topic: fc.constantFrom(...ARTICLE_TOPICS, 'nope'),
      query: fc.constantFrom('48N', 'permis probatoire', 'stage', 'zzzz', ''),
      limit: fc.constantFrom(1, 5, '3', 0, 51),
    }),
  ),
  get_article: withUnknown(
    optional({
      slug: fc.constantFrom(
        'annulation-et-changement-de-date',
        'CONSULTER-SON-SOLDE-DE-POINTS',
        'comment-fonctionne-un-stage-de-recuperation-de-points',
        'no-such-article',
        '',
      ),
    }),
  ),
};

const toolName = fc.oneof(
  { arbitrary: fc.constantFrom(...MCP_TOOL_NAMES), weight: 10 },
  { arbitrary: fc.constant('book_stage'), weight: 1 },
);

/** What the params of a request hold besides name and arguments, in each era. */
const callBody = fc.record({
  name: toolName,
  args: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.constant('tool'), weight: 12 },
    { arbitrary: fc.constant('other'), weight: 1 },
    { arbitrary: fc.constant('text'), weight: 1 },
  ),
  progress: fc.oneof({ arbitrary: fc.constant(false), weight: 8 }, { arbitrary: fc.constant(true), weight: 1 }),
});

const method = fc.oneof(
  { arbitrary: fc.constant('tools/call'), weight: 8 },
  { arbitrary: fc.constant('tools/list'), weight: 2 },
  { arbitrary: fc.constant('tools/lists'), weight: 1 },
);

const call: fc.Arbitrary<Call> = fc
  .record({
    modern: fc.boolean(),
    legacyVersion: fc.constantFrom(...LEGACY_VERSIONS, undefined, '1999-01-01'),
    method,
    body: callBody,
    args: fc.constantFrom(...Object.keys(TOOL_ARGS)).chain((tool) => TOOL_ARGS[tool] as fc.Arbitrary<object>),
    wrongNameHeader: fc.oneof(
      { arbitrary: fc.constant(false), weight: 10 },
      { arbitrary: fc.constant(true), weight: 1 },
    ),
    listCursor: fc.oneof({ arbitrary: fc.constant(false), weight: 6 }, { arbitrary: fc.constant(true), weight: 1 }),
  })
  .chain((c) =>
    // The arguments of the tool actually named (or another tool's, now and then: unknown arguments).
    (TOOL_ARGS[c.body.name] ?? fc.constant({})).map((own) => ({ ...c, own })),
  )
  .map((c) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const params: Record<string, unknown> = {};
    if (c.method !== 'tools/list') {
      params.name = c.body.name;
      if (c.body.args === 'tool') params.arguments = c.own;
      else if (c.body.args === 'other') params.arguments = c.args;
      else if (c.body.args === 'text') params.arguments = 'dept=69';
    } else if (c.listCursor) params.cursor = 'abc';
    if (c.body.progress) params._meta = { progressToken: 7 };
    if (c.modern) {
      headers['mcp-protocol-version'] = MODERN;
      headers['mcp-method'] = c.method;
      if (c.method === 'tools/call') headers['mcp-name'] = c.wrongNameHeader ? 'get_centre' : c.body.name;
      params._meta = { ...(params._meta as object), ...ENVELOPE };
    } else if (c.legacyVersion) headers['mcp-protocol-version'] = c.legacyVersion;
    const message: Record<string, unknown> = { jsonrpc: '2.0', method: c.method };
    if (c.method !== 'tools/list' || Object.keys(params).length > 0 || c.modern) message.params = params;
    return { headers, message };
  });

/** Ids as clients send them, and a few the SDK refuses (not an integer, too large, null). */
const id = fc.oneof(
  { arbitrary: fc.integer(), weight: 4 },
  { arbitrary: fc.string({ maxLength: 24 }), weight: 4 },
  {
    arbitrary: fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, 1e21, 1.5, null, true, '', 'a"b\\c', 'é😀', '1'),
    weight: 2,
  },
);

async function post(app: FastifyInstance, c: Call, requestId: unknown) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: c.headers,
    payload: JSON.stringify({ ...c.message, id: requestId }),
  });
  // Per response, whoever answers: the date and the request id.
  const headers = { ...res.headers };
  delete headers.date;
  delete headers['x-request-id'];
  return { status: res.statusCode, headers, body: res.body };
}

describe('MCP fast path', () => {
  let t: TestApp;
  let sdk: FastifyInstance;
  const clock = frozenClock(FIXTURE_NOW);

  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
    sdk = await buildApp(testConfig({ MCP_ANSWER_CACHE: 'off' }), { database: t.db.database, logger: false, clock });
    await sdk.ready();
  });
  afterAll(async () => {
    await sdk?.close();
    await t?.close();
  });

  it('answers byte for byte what the SDK answers, on 2,500 generated requests of both eras', async () => {
    const cache = t.app.mcpAnswerCache as McpAnswerCache;
    expect(cache).toBeDefined();
    expect(sdk.mcpAnswerCache).toBeUndefined();
    const seen = { kept: 0, results: 0, errors: 0, modernKept: 0, legacyKept: 0 };
    await fc.assert(
      fc.asyncProperty(call, id, id, async (c, first, second) => {
        await post(t.app, c, first);
        const hitsBefore = cache.hits;
        const fast = await post(t.app, c, second);
        const reference = await post(sdk, c, second);
        expect(fast).toEqual(reference);
        if (cache.hits > hitsBefore) {
          seen.kept++;
          if (c.headers['mcp-protocol-version'] === MODERN) seen.modernKept++;
          else seen.legacyKept++;
        }
        const name = (c.message.params as { name?: unknown } | undefined)?.name;
        const replayable = typeof name !== 'string' || !MCP_TOOL_NAMES.has(name) || MCP_KEPT_TOOLS.has(name);
        if (reference.status === 200 && /"result":/.test(reference.body) && !/"isError":true/.test(reference.body)) {
          if (replayable) seen.results++;
        } else seen.errors++;
      }),
      { seed: 20261123, numRuns: 2500 },
    );
    // Not vacuous: most successful answers of the tools it may replay (all but check_availability
    // and check_eligibility)
    // came from the fast path, in both eras, and errors were generated too (and answered by the
    // SDK, since the comparison held).
    expect(seen.kept).toBeGreaterThan(seen.results * 0.9);
    expect(seen.modernKept).toBeGreaterThan(200);
    expect(seen.legacyKept).toBeGreaterThan(200);
    expect(seen.errors).toBeGreaterThan(300);
  }, 300_000);

  it('forgets kept answers when the catalogue changes', async () => {
    const c: Call = {
      headers: { 'content-type': 'application/json' },
      message: {
        jsonrpc: '2.0',
        method: 'tools/call',
        params: { name: 'search_stages', arguments: { dept: '69', includeUnavailable: true, limit: 100 } },
      },
    };
    const places = async (app: FastifyInstance = t.app) =>
      (
        JSON.parse((await post(app, c, 1)).body).result.structuredContent.data as {
          id: string;
          spotsAvailable: number;
        }[]
      ).find((s) => s.id === SESSIONS.lyonMar5.id)?.spotsAvailable;
    const before = (await places()) as number;
    const hits = t.app.mcpAnswerCache?.hits ?? 0;
    expect(await places()).toBe(before);
    expect(t.app.mcpAnswerCache?.hits).toBe(hits + 1);
    const keys = await keysFor(t.app, CENTRES.lyon.id);
    const change = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}/places`,
      headers: keys.admin,
      payload: { change: -1 },
    });
    expect(change.statusCode).toBe(200);
    const end = Date.now() + 5000;
    // Each app applies the change from its own change stream: wait for both.
    while ((await places()) !== before - 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    while ((await places(sdk)) !== before - 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(await places()).toBe(before - 1);
    expect(await post(t.app, c, 2)).toEqual(await post(sdk, c, 2));
  });

  it('forgets kept answers when the date changes, in every time zone, and when a session starts', async () => {
    const c: Call = {
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
      message: {
        jsonrpc: '2.0',
        method: 'tools/call',
        params: { name: 'search_stages', arguments: { includeUnavailable: true, limit: 100 } },
      },
    };
    const ids = async () =>
      (JSON.parse((await post(t.app, c, 1)).body).result.structuredContent.data as { id: string }[]).map((s) => s.id);
    expect(await ids()).toContain(SESSIONS.lyonMar5.id);
    // 00:30 on 6 March in Paris: the sessions starting on the 5th are no longer upcoming.
    clock.set('2030-03-05T23:30:00Z');
    try {
      expect(await ids()).not.toContain(SESSIONS.lyonMar5.id);
      expect(await post(t.app, c, 3)).toEqual(await post(sdk, c, 3));
      // In Réunion (UTC+4) the 19 March session begins at 08:30 there, 04:30 UTC (05:30 in Paris): it
      // leaves the lists then, not at midnight.
      const reunion: Call = {
        headers: { 'content-type': 'application/json' },
        message: {
          jsonrpc: '2.0',
          method: 'tools/call',
          params: { name: 'get_centre', arguments: { idOrSlug: CENTRES.reunion.id, limit: 50 } },
        },
      };
      // get_centre lists the sessions not yet begun, in the centre's own zone.
      const listed = async () =>
        (JSON.parse((await post(t.app, reunion, 1)).body).result.structuredContent.sessions as { id: string }[])
          .map((s) => s.id)
          .includes(SESSIONS.reunionMar19.id);
      clock.set('2030-03-19T04:29:00Z');
      expect(await listed()).toBe(true);
      expect(await listed()).toBe(true);
      clock.set('2030-03-19T04:30:00Z');
      expect(await listed()).toBe(false);
      expect(await post(t.app, reunion, 4)).toEqual(await post(sdk, reunion, 4));
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });

  it('serves a kept answer only after the origin guard, the bearer check and the rate limit', async () => {
    const limited = await buildApp(
      testConfig({ RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS: '3', MCP_ALLOWED_ORIGINS: 'https://agent.example' }),
      { database: t.db.database, logger: false, clock },
    );
    try {
      const c: Call = {
        headers: { 'content-type': 'application/json' },
        message: { jsonrpc: '2.0', method: 'tools/list' },
      };
      expect((await post(limited, c, 1)).status).toBe(200);
      expect((await post(limited, c, 2)).status).toBe(200);
      expect(limited.mcpAnswerCache?.hits).toBe(1);
      const evil = await post(limited, { ...c, headers: { ...c.headers, origin: 'https://evil.example' } }, 3);
      expect(evil.status).toBe(403);
      expect(JSON.parse(evil.body).error.message).toMatch(/not allowed/);
      // The refusal was charged: the budget of 3 is spent, the kept answer is not served.
      const over = await post(limited, c, 4);
      expect(over.status).toBe(429);
      const forged = await post(t.app, { ...c, headers: { ...c.headers, authorization: 'Bearer forged' } }, 5);
      expect(forged.status).toBe(401);
      expect(forged.headers['www-authenticate']).toMatch(/invalid_token/);
      expect(limited.mcpAnswerCache?.hits).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('never replays check_availability, whose answer says when it was computed', async () => {
    const c: Call = {
      headers: { 'content-type': 'application/json' },
      message: {
        jsonrpc: '2.0',
        method: 'tools/call',
        params: { name: 'check_availability', arguments: { sessionId: SESSIONS.lyonMar5.id } },
      },
    };
    const checkedAt = async () => JSON.parse((await post(t.app, c, 1)).body).result.structuredContent.checkedAt;
    const hits = t.app.mcpAnswerCache?.hits ?? 0;
    clock.set('2030-03-04T10:00:00Z');
    try {
      expect(await checkedAt()).toBe('2030-03-04T10:00:00.000Z');
      clock.set('2030-03-04T10:05:00Z');
      expect(await checkedAt()).toBe('2030-03-04T10:05:00.000Z');
    } finally {
      clock.set(FIXTURE_NOW);
    }
    expect(t.app.mcpAnswerCache?.hits).toBe(hits);
  });

  it('keeps within its limits of entries and bytes, dropping the least recently used', () => {
    const cache = new McpAnswerCache({ catalogue: t.app.catalogue, clock }, MCP_TOOL_NAMES, {
      maxEntries: 3,
      maxBytes: 16_000,
    });
    const candidate = (n: number) =>
      cache.candidate(
        { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'get_article', arguments: { slug: `s${n}` } } },
        {},
      ) as NonNullable<ReturnType<McpAnswerCache['candidate']>>;
    const body = (n: number, size: number) => `{"result":{"text":"${'x'.repeat(size)}"},"jsonrpc":"2.0","id":${n}}`;
    const headers: [string, string][] = [['content-type', 'application/json']];
    for (const n of [1, 2, 3]) expect(cache.store(candidate(n), 200, headers, body(n, 100))).toBe(true);
    expect(cache.lookup(candidate(1))).toBeDefined(); // 1 is now the most recently used
    expect(cache.store(candidate(4), 200, headers, body(4, 100))).toBe(true);
    expect(cache.size).toBe(3);
    expect(cache.lookup(candidate(2))).toBeUndefined();
    expect(cache.lookup(candidate(1))?.body.toString()).toBe(body(1, 100));
    // Bytes: an answer over a sixteenth of the budget is not kept; the total stays within it.
    expect(cache.store(candidate(5), 200, headers, body(5, 1100))).toBe(false);
    for (const n of [6, 7, 8]) cache.store(candidate(n), 200, headers, body(n, 900));
    expect(cache.bytes).toBeLessThanOrEqual(16_000);
    expect(cache.size).toBeLessThanOrEqual(3);
    // Only successful results are kept, and only when the id can be spliced back.
    expect(cache.store(candidate(9), 400, headers, body(9, 10))).toBe(false);
    expect(
      cache.store(candidate(9), 200, headers, '{"result":{"isError":true,"content":[]},"jsonrpc":"2.0","id":9}'),
    ).toBe(false);
    expect(cache.store(candidate(9), 200, headers, '{"jsonrpc":"2.0","id":9,"result":{}}')).toBe(false);
    expect(cache.store(candidate(9), 200, headers, body(10, 10))).toBe(false);
  });

  it('keeps only tools that are read-only: every listed tool is named in MCP_TOOL_NAMES, every kept one read-only', async () => {
    const res = await post(
      t.app,
      { headers: { 'content-type': 'application/json' }, message: { jsonrpc: '2.0', method: 'tools/list' } },
      1,
    );
    const tools = JSON.parse(res.body).result.tools as { name: string; annotations?: { readOnlyHint?: boolean } }[];
    expect(tools.map((tool) => tool.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    for (const tool of tools)
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(
        MCP_KEPT_TOOLS.has(tool.name) || tool.name === 'check_availability' || tool.name === 'check_eligibility',
      );
    // watches, hold_place and release_hold change what is stored and answer one claimed client: never kept.
    for (const name of ['watches', 'hold_place', 'release_hold']) expect(MCP_KEPT_TOOLS.has(name), name).toBe(false);
  });
});
