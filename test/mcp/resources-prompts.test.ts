import type { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CENTRES, SESSIONS } from '../helpers/fixtures.js';
import { connect, ERAS, type McpTestServer, rawPost, startMcpTestServer } from '../helpers/mcp.js';

/*
 * Resources (the articles, a session, a centre), prompts and completions, as the real SDK
 * clients of both protocol eras see them, with the 2026-07-28 caching hints.
 */

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpTestServer();
});
afterAll(async () => {
  await server.close();
});

const ARTICLE_COUNT = 15;
const stateless = (label: string) => label.startsWith('2026');

describe.each(ERAS)('resources, prompts and completions — SDK 2.x client, $label', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(server.endpoint, era);
  });
  afterAll(async () => {
    await client.close();
  });

  it('lists every article as a Markdown resource with its title and summary', async () => {
    const list = await client.listResources();
    expect(list.resources).toHaveLength(ARTICLE_COUNT);
    const article = list.resources.find((r) => r.uri === 'stages://articles/quand-les-points-sont-ils-credites');
    expect(article).toMatchObject({ mimeType: 'text/markdown', name: 'quand-les-points-sont-ils-credites' });
    expect(article?.title).toMatch(/points/i);
    expect(article?.description?.length).toBeGreaterThan(20);
    for (const r of list.resources) expect(r.uri).toMatch(/^stages:\/\/articles\/[a-z0-9-]+$/);
    if (stateless(era.label)) expect(list).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
    else expect(list).not.toHaveProperty('ttlMs');
  });

  it('reads an article as Markdown with its legal sources', async () => {
    const read = await client.readResource({ uri: 'stages://articles/quand-les-points-sont-ils-credites' });
    expect(read.contents).toHaveLength(1);
    const [content] = read.contents as Array<{ uri: string; mimeType: string; text: string }>;
    expect(content?.mimeType).toBe('text/markdown');
    expect(content?.text).toMatch(/^# .+\n\n/);
    expect(content?.text).toContain('## Sources');
    if (stateless(era.label)) expect(read).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
  });

  it('offers a session template and a centre template', async () => {
    const { resourceTemplates, ...meta } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'stages://centres/{idOrSlug}',
      'stages://sessions/{id}',
    ]);
    for (const t of resourceTemplates) expect(t).toMatchObject({ mimeType: 'application/json' });
    if (stateless(era.label)) expect(meta).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
  });

  it('reads a session as check_availability answers it, never to be reused', async () => {
    const id = SESSIONS.lyonMar5.id;
    const read = await client.readResource({ uri: `stages://sessions/${id}` });
    const tool = await client.callTool({ name: 'check_availability', arguments: { sessionId: id } });
    const [json, text] = read.contents as Array<{ mimeType: string; text: string }>;
    expect(json?.mimeType).toBe('application/json');
    expect(JSON.parse(json?.text ?? '')).toEqual(tool.structuredContent);
    expect(JSON.parse(json?.text ?? '')).toMatchObject({ status: 'available', spotsAvailable: 3, priceEuros: 239 });
    expect(text).toEqual({
      uri: `stages://sessions/${id}`,
      mimeType: 'text/plain',
      text: (tool.content[0] as { text: string }).text,
    });
    if (stateless(era.label)) expect(read).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
  });

  it('reads a centre by slug or id as get_centre answers it', async () => {
    const bySlug = await client.readResource({ uri: 'stages://centres/centre-lyon' });
    const byId = await client.readResource({ uri: `stages://centres/${CENTRES.lyon.id}` });
    const tool = await client.callTool({ name: 'get_centre', arguments: { idOrSlug: 'centre-lyon' } });
    const value = JSON.parse((bySlug.contents[0] as { text: string }).text);
    expect(value).toEqual(tool.structuredContent);
    expect(value.centre).toMatchObject({ slug: 'centre-lyon', city: 'Lyon' });
    expect(value.sessions.map((s: { id: string }) => s.id)).toEqual([SESSIONS.lyonMar5Early.id, SESSIONS.lyonMar5.id]);
    expect(byId.contents).toEqual(bySlug.contents.map((c) => ({ ...c, uri: `stages://centres/${CENTRES.lyon.id}` })));
  });

  it('answers an unknown session, centre or article with a resource-not-found error', async () => {
    await expect(
      client.readResource({ uri: 'stages://sessions/00000000-0000-4000-8000-000000000000' }),
    ).rejects.toThrow(/No session has the id/);
    await expect(client.readResource({ uri: 'stages://centres/nowhere' })).rejects.toThrow(
      /No centre has the id or slug/,
    );
    await expect(client.readResource({ uri: 'stages://articles/nope' })).rejects.toThrow(/not found/i);
  });

  it('lists two prompts with their arguments', async () => {
    const list = await client.listPrompts();
    const byName = Object.fromEntries(list.prompts.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(['explain_points_recovery', 'find_course']);
    expect(byName.find_course?.arguments?.map((a) => [a.name, a.required ?? false])).toEqual([
      ['town', true],
      ['maxPrice', false],
      ['dept', false],
    ]);
    if (stateless(era.label)) expect(list).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
  });

  it('find_course plans the tool calls for a town, a department and a budget', async () => {
    const prompt = await client.getPrompt({
      name: 'find_course',
      arguments: { town: 'Villeurbanne', dept: 'rhône', maxPrice: '250' },
    });
    expect(prompt.description).toBe('Find a course in Villeurbanne (department 69, Rhône) costing at most 250 €.');
    const text = (prompt.messages[0] as { content: { text: string } }).content.text;
    expect(text).toContain('Call search_stages with { city: "Villeurbanne", dept: "69", maxPrice: 250 }');
    expect(text).toContain('check_availability');
  });

  it('find_course refuses a budget that is not an amount and a department that does not exist', async () => {
    await expect(
      client.getPrompt({ name: 'find_course', arguments: { town: 'Lyon', maxPrice: 'cheap' } }),
    ).rejects.toThrow(/maxPrice must be an amount in euros/);
    await expect(client.getPrompt({ name: 'find_course', arguments: { town: 'Lyon', dept: '99' } })).rejects.toThrow(
      /dept must be a French department code or name/,
    );
  });

  it('explain_points_recovery embeds the articles on the subject, more for a probationary licence', async () => {
    const general = await client.getPrompt({ name: 'explain_points_recovery', arguments: {} });
    const probation = await client.getPrompt({
      name: 'explain_points_recovery',
      arguments: { situation: 'probatoire' },
    });
    const uris = (p: typeof general) =>
      p.messages.flatMap((m) => (m.content.type === 'resource' ? [m.content.resource.uri] : []));
    expect(uris(general)).toContain('stages://articles/quand-les-points-sont-ils-credites');
    expect(uris(probation)).toEqual([
      ...uris(general),
      'stages://articles/permis-probatoire-lettre-48n-stage-obligatoire',
    ]);
  });

  it('completes towns (St → Saint, most populous first), departments and centre slugs', async () => {
    const towns = await client.complete({
      ref: { type: 'ref/prompt', name: 'find_course' },
      argument: { name: 'town', value: 'st eti' },
    });
    expect(towns.completion.values[0]).toBe('Saint-Étienne');
    const villeur = await client.complete({
      ref: { type: 'ref/prompt', name: 'find_course' },
      argument: { name: 'town', value: 'villeur' },
    });
    expect(villeur.completion.values[0]).toBe('Villeurbanne');
    const lyon = await client.complete({
      ref: { type: 'ref/prompt', name: 'find_course' },
      argument: { name: 'town', value: 'lyon 3' },
    });
    expect(lyon.completion.values).toContain('Lyon 3e Arrondissement');
    const inDept = await client.complete({
      ref: { type: 'ref/prompt', name: 'find_course' },
      argument: { name: 'town', value: 'saint-denis' },
      context: { arguments: { dept: '974' } },
    });
    expect(inDept.completion.values).toEqual(['Saint-Denis']);
    const many = await client.complete({
      ref: { type: 'ref/prompt', name: 'find_course' },
      argument: { name: 'town', value: 'saint' },
    });
    expect(many.completion).toMatchObject({ hasMore: true });
    expect(many.completion.values).toHaveLength(100);

    const depts = await client.complete({
      ref: { type: 'ref/prompt', name: 'find_course' },
      argument: { name: 'dept', value: 'rh' },
    });
    expect(depts.completion.values).toEqual(['69']);
    const byCode = await client.complete({
      ref: { type: 'ref/prompt', name: 'find_course' },
      argument: { name: 'dept', value: '97' },
    });
    expect(byCode.completion.values).toEqual(['971', '972', '973', '974', '976']);

    const centres = await client.complete({
      ref: { type: 'ref/resource', uri: 'stages://centres/{idOrSlug}' },
      argument: { name: 'idOrSlug', value: 'saint' },
    });
    expect(centres.completion.values).toEqual(['centre-saint-denis-reunion', 'centre-saint-etienne']);
  });
});

describe('SDK 1.x client (@modelcontextprotocol/sdk)', () => {
  it('lists and reads resources, gets prompts and completions', async () => {
    const client = new V1Client({ name: 'v1-test', version: '1.0.0' });
    await client.connect(new V1Transport(server.endpoint));
    try {
      const { resources } = await client.listResources();
      expect(resources).toHaveLength(ARTICLE_COUNT);
      const read = await client.readResource({ uri: resources[0]!.uri });
      expect(read.contents[0]).toMatchObject({ uri: resources[0]!.uri, mimeType: 'text/markdown' });
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toHaveLength(2);
      const session = await client.readResource({ uri: `stages://sessions/${SESSIONS.parisMar6Full.id}` });
      expect(JSON.parse((session.contents[0] as { text: string }).text)).toMatchObject({
        status: 'full',
        bookable: false,
      });
      const prompt = await client.getPrompt({ name: 'find_course', arguments: { town: 'Lyon' } });
      expect(prompt.description).toBe('Find a course in Lyon.');
      const completion = await client.complete({
        ref: { type: 'ref/prompt', name: 'find_course' },
        argument: { name: 'dept', value: '2' },
      });
      expect(completion.completion.values).toContain('2A');
    } finally {
      await client.close();
    }
  });
});

describe('caching hints on the wire (2026-07-28)', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  it.each([
    ['prompts/list', {}, 3_600_000],
    ['resources/list', {}, 3_600_000],
    ['resources/templates/list', {}, 3_600_000],
    ['resources/read', { uri: 'stages://articles/consulter-son-solde-de-points' }, 3_600_000],
    ['resources/read', { uri: `stages://sessions/${SESSIONS.lyonMar5.id}` }, 0],
  ])('%s %j carries ttlMs %i and cacheScope public', async (method, params, ttlMs) => {
    const res = await rawPost(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: envelope } }),
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...('uri' in params ? { 'mcp-name': String(params.uri) } : {}),
      },
    );
    expect(res.status).toBe(200);
    expect(res.json.result).toMatchObject({ ttlMs, cacheScope: 'public' });
  });
});

describe('an unknown resource, on the wire: the code its revision names', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const unknown = [
    'stages://sessions/00000000-0000-4000-8000-000000000000',
    'stages://centres/nowhere',
    'stages://articles/nope',
    'elsewhere://nothing',
  ];

  it.each(unknown)('-32602 with data.uri in 2026-07-28 (SEP-2164) for %s', async (uri) => {
    const res = await rawPost(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri, _meta: envelope } }),
      {
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'resources/read',
        'mcp-name': uri,
      },
    );
    expect(res.json).toMatchObject({ id: 9, error: { code: -32602, data: { uri } } });
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'].flatMap((version) => unknown.map((uri) => [version, uri])))(
    '-32002 with data.uri in %s (its resources page: "Resource not found: -32002") for %s',
    async (version, uri) => {
      const res = await rawPost(
        server.endpoint,
        JSON.stringify({ jsonrpc: '2.0', id: 'r', method: 'resources/read', params: { uri } }),
        { 'content-type': 'application/json', 'mcp-protocol-version': version as string },
      );
      expect(res.json).toMatchObject({ id: 'r', error: { code: -32002, data: { uri } } });
      expect(res.json.error.message).toBeTruthy();
    },
  );

  it('leaves every other invalid-params answer of that era alone', async () => {
    const res = await rawPost(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'book_session', arguments: {} } }),
      { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    );
    expect(res.json.error.code).toBe(-32602);
  });
});
