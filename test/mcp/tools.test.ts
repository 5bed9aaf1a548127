import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL } from '../helpers/app.js';
import { CENTRES, SESSIONS } from '../helpers/fixtures.js';
import { connect, ERAS, type McpTestServer, startMcpTestServer } from '../helpers/mcp.js';

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpTestServer();
});
afterAll(() => server.close());

const TOOL_NAMES = [
  'search_stages',
  'check_availability',
  'get_centre',
  'list_articles',
  'get_article',
  'check_eligibility',
  'watches',
  'hold_place',
  'release_hold',
];
/** The tools that act for a claimed client's person: they change what is stored. */
const AGENT_TOOLS = ['watches', 'hold_place', 'release_hold'];

// biome-ignore lint/suspicious/noExplicitAny: tool results are inspected structurally
const structured = (r: any) => r.structuredContent as any;
// biome-ignore lint/suspicious/noExplicitAny: tool results are inspected structurally
const text = (r: any) => (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');

describe.each(ERAS)('MCP tools with the official client, revision $label', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(server.endpoint, era);
  });
  afterAll(() => client.close());

  it('negotiates the expected revision', () => {
    const pinned = era.options?.versionNegotiation;
    expect(client.getProtocolEra()).toBe(pinned ? 'modern' : 'legacy');
  });

  it('lists the six read tools, each described, read-only, with input and output schemas, and the claimed agents’ three', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    // watches writes (a claimed agent's alerts for its person): not read-only, and says who may use it.
    const watches = tools.find((t) => t.name === 'watches');
    expect(watches?.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: false, idempotentHint: true });
    expect(watches?.description).toContain('/api/oauth/claim');
    expect(watches?.inputSchema.additionalProperties).toBe(false);
    // Holding a place: not read-only, not destructive, repeatable; says who may and that the person books.
    for (const name of ['hold_place', 'release_hold']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.annotations, name).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(tool?.inputSchema.additionalProperties, name).toBe(false);
    }
    const hold = tools.find((t) => t.name === 'hold_place');
    expect(hold?.description).toContain('"hold"');
    expect(hold?.description).toContain('completeUrl (never you)');
    for (const tool of tools.filter((t) => !AGENT_TOOLS.includes(t.name))) {
      expect(tool.title).toBeTruthy();
      expect(tool.description?.length).toBeGreaterThan(100);
      expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      for (const [name, prop] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((prop as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
    const search = tools.find((t) => t.name === 'search_stages');
    expect(search?.description).toContain('bookingUrl');
    // An integer, its digits as text, or "" for the default (test/system/clients/tool-arguments.test.ts).
    expect(search?.inputSchema.properties?.limit).toMatchObject({
      anyOf: expect.arrayContaining([{ type: 'integer', minimum: 1, maximum: 100 }]),
      default: 20,
    });
    expect(search?.inputSchema.additionalProperties).toBe(false);
  });

  it('search_stages answers exactly what GET /api/stages answers for the same filters', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, ''],
      [{ dept: '69' }, '?dept=69'],
      [{ city: 'saint etienne' }, '?city=saint%20etienne'],
      [{ region: 'rhone', maxPrice: 240, limit: 2 }, '?region=rhone&maxPrice=240&limit=2'],
      [
        { includeUnavailable: true, from: '2030-03-06', to: '2030-04-30' },
        '?includeUnavailable=true&from=2030-03-06&to=2030-04-30',
      ],
      [{ dept: '2a' }, '?dept=2a'],
    ];
    for (const [args, query] of cases) {
      const r = await client.callTool({ name: 'search_stages', arguments: args });
      expect(r.isError ?? false).toBe(false);
      const rest = (await server.app.inject(`/api/stages${query}`)).json();
      expect(structured(r), JSON.stringify(args)).toEqual(rest);
    }
  });

  it('search_stages gives a readable text block naming each session and its booking page', async () => {
    const r = await client.callTool({ name: 'search_stages', arguments: { dept: '69' } });
    expect(text(r)).toContain(`book: ${BASE_URL}/stages/${SESSIONS.lyonMar5.id}`);
    expect(text(r)).toContain('3 places left');
    expect(text(r)).toMatch(/never done through this service/);
  });

  it('search_stages refuses invalid arguments with a tool error naming each one', async () => {
    for (const [args, name] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ from: '2026-02-30' }, 'from'],
      [{ maxPrice: -1 }, 'maxPrice'],
      [{ dept: '999' }, 'dept'],
      [{ includeUnavailable: 'maybe' }, 'includeUnavailable'],
      [{ from: '2030-03-10', to: '2030-03-09' }, 'to'],
    ] as const) {
      const r = await client.callTool({ name: 'search_stages', arguments: args });
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(text(r)).toContain(`${name}: `);
    }
  });

  it('check_availability tells available, full and past sessions apart', async () => {
    const ok = await client.callTool({ name: 'check_availability', arguments: { sessionId: SESSIONS.lyonMar5.id } });
    expect(structured(ok)).toMatchObject({
      status: 'available',
      bookable: true,
      spotsAvailable: 3,
      priceEuros: 239,
      bookingUrl: `${BASE_URL}/stages/${SESSIONS.lyonMar5.id}`,
      courseNumber: SESSIONS.lyonMar5.courseNumber,
      session: { id: SESSIONS.lyonMar5.id, centre: { agrementNumber: CENTRES.lyon.agrementNumber } },
    });
    expect(text(ok)).toContain('3 places left');

    const full = await client.callTool({
      name: 'check_availability',
      arguments: { sessionId: SESSIONS.parisMar6Full.id },
    });
    expect(structured(full)).toMatchObject({ status: 'full', bookable: false, spotsAvailable: 0 });
    expect(text(full)).toContain('is full');

    const past = await client.callTool({ name: 'check_availability', arguments: { sessionId: SESSIONS.lyonPast.id } });
    expect(structured(past)).toMatchObject({ status: 'past', bookable: false });
    expect(text(past)).toContain('can no longer be booked');
  });

  it('check_availability says so for an unknown or malformed id', async () => {
    const unknown = await client.callTool({
      name: 'check_availability',
      arguments: { sessionId: '00000000-0000-4000-8000-999999999999' },
    });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('No session has the id');
    const malformed = await client.callTool({ name: 'check_availability', arguments: { sessionId: 'abc' } });
    expect(malformed.isError).toBe(true);
    expect(text(malformed)).toContain('sessionId');
  });

  it('get_centre finds a centre by id or slug with its upcoming sessions', async () => {
    const bySlug = await client.callTool({ name: 'get_centre', arguments: { idOrSlug: 'centre-lyon' } });
    const byId = await client.callTool({ name: 'get_centre', arguments: { idOrSlug: CENTRES.lyon.id } });
    expect(structured(bySlug)).toEqual(structured(byId));
    const c = structured(bySlug);
    expect(c.centre).toMatchObject({ id: CENTRES.lyon.id, deptName: 'Rhône', url: `${BASE_URL}/centres/centre-lyon` });
    expect(c.sessions.map((s: { id: string }) => s.id)).toEqual([SESSIONS.lyonMar5Early.id, SESSIONS.lyonMar5.id]);
    expect(c.upcomingCount).toBe(2);
    const all = structured(
      await client.callTool({
        name: 'get_centre',
        arguments: { idOrSlug: 'centre-lyon', includeUnavailable: true, limit: 2 },
      }),
    );
    expect(all.upcomingCount).toBe(3);
    expect(all.sessions).toHaveLength(2);
    const unknown = await client.callTool({ name: 'get_centre', arguments: { idOrSlug: 'nowhere' } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('No centre has the id or slug "nowhere"');
  });

  it('list_articles lists at least twelve articles and filters by topic and words', async () => {
    const all = structured(await client.callTool({ name: 'list_articles', arguments: {} }));
    expect(all.count).toBeGreaterThanOrEqual(12);
    expect(all.articles[0]).toEqual(
      expect.objectContaining({ slug: expect.any(String), title: expect.any(String), summary: expect.any(String) }),
    );
    const probation = structured(
      await client.callTool({ name: 'list_articles', arguments: { topic: 'permis-probatoire' } }),
    );
    expect(probation.count).toBeGreaterThanOrEqual(1);
    expect(probation.articles.every((a: { topic: string }) => a.topic === 'permis-probatoire')).toBe(true);
    const words = structured(await client.callTool({ name: 'list_articles', arguments: { query: 'lettre 48N' } }));
    expect(words.articles.map((a: { slug: string }) => a.slug)).toContain(
      'permis-probatoire-lettre-48n-stage-obligatoire',
    );
    const bad = await client.callTool({ name: 'list_articles', arguments: { topic: 'cooking' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('topic');
  });

  it('get_article returns the full body and its legal sources', async () => {
    const r = await client.callTool({
      name: 'get_article',
      arguments: { slug: 'permis-probatoire-lettre-48n-stage-obligatoire' },
    });
    const a = structured(r);
    expect(a.body.length).toBeGreaterThan(1000);
    expect(a.body).toContain('48N');
    expect(a.sources.some((s: { title: string }) => /Code de la route/.test(s.title))).toBe(true);
    expect(text(r)).toContain(a.title);
    const unknown = await client.callTool({ name: 'get_article', arguments: { slug: 'nope' } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('list_articles');
  });

  it('answers an unknown tool with a JSON-RPC error, not a tool result', async () => {
    await expect(client.callTool({ name: 'book_session', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });
});
