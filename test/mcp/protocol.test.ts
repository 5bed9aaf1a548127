import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_BODY_LIMIT } from '../../src/mcp/plugin.js';
import { BASE_URL } from '../helpers/app.js';
import { type McpTestServer, rawPost, startMcpTestServer } from '../helpers/mcp.js';

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpTestServer({ MCP_ALLOWED_ORIGINS: `${BASE_URL},https://agent.example` });
});
afterAll(() => server.close());

const JSON_ONLY = { 'content-type': 'application/json' };
const rpc = (method: string, params?: unknown, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const modernHeaders = (method: string, name?: string) => ({
  ...JSON_ONLY,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});

describe('POST /api/mcp over plain HTTP', () => {
  it('answers a plain client that sends only Content-Type: application/json with JSON (no 406)', async () => {
    const init = await rawPost(
      server.endpoint,
      rpc('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'curl', version: '8' },
      }),
    );
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toMatch(/^application\/json/);
    expect(init.json.result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'stages-recup-points' },
    });
    expect(init.json.result.capabilities.tools).toEqual({ listChanged: false });

    const list = await rawPost(server.endpoint, rpc('tools/list', undefined, 2));
    expect(list.status).toBe(200);
    expect(list.json.result.tools).toHaveLength(9);

    const call = await rawPost(
      server.endpoint,
      rpc('tools/call', { name: 'search_stages', arguments: { dept: '69' } }, 3),
    );
    expect(call.json.result.structuredContent.count).toBe(2);
  });

  it('answers ping for initialize-era clients', async () => {
    const r = await rawPost(server.endpoint, rpc('ping'));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('accepts notifications with 202 and no body', async () => {
    const r = await rawPost(server.endpoint, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('serves the stateless 2026-07-28 revision: server/discover with caching hints', async () => {
    const r = await rawPost(
      server.endpoint,
      rpc('server/discover', { _meta: ENVELOPE }),
      modernHeaders('server/discover'),
    );
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: false } },
      resultType: 'complete',
      ttlMs: 3_600_000,
      cacheScope: 'public',
    });
    expect(r.json.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('stages-recup-points');
    const list = await rawPost(server.endpoint, rpc('tools/list', { _meta: ENVELOPE }), modernHeaders('tools/list'));
    expect(list.json.result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    const call = await rawPost(
      server.endpoint,
      rpc('tools/call', { name: 'get_centre', arguments: { idOrSlug: 'centre-paris' }, _meta: ENVELOPE }),
      modernHeaders('tools/call', 'get_centre'),
    );
    expect(call.status).toBe(200);
    expect(call.json.result.structuredContent.centre.slug).toBe('centre-paris');
  });

  it('validates the 2026-07-28 headers against the body', async () => {
    const body = rpc('tools/call', { name: 'get_centre', arguments: { idOrSlug: 'centre-paris' }, _meta: ENVELOPE });
    const missingVersion = await rawPost(server.endpoint, body, {
      ...JSON_ONLY,
      'mcp-method': 'tools/call',
      'mcp-name': 'get_centre',
    });
    expect(missingVersion.status).toBe(400);
    expect(missingVersion.json.error.code).toBe(-32020);
    const wrongName = await rawPost(server.endpoint, body, modernHeaders('tools/call', 'search_stages'));
    expect(wrongName.status).toBe(400);
    expect(wrongName.json.error.code).toBe(-32020);
    const unsupported = await rawPost(
      server.endpoint,
      rpc('tools/list', { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }),
      { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' },
    );
    expect(unsupported.status).toBe(400);
    expect(unsupported.json.error.code).toBe(-32022);
  });

  it('answers malformed JSON with -32700', async () => {
    for (const body of ['{bad', '', '{"jsonrpc":"2.0",']) {
      const r = await rawPost(server.endpoint, body);
      expect(r.status, body).toBe(400);
      expect(r.json.error.code, body).toBe(-32700);
    }
  });

  it('answers a batch from an older client (2025-03-26 allows them) with an array', async () => {
    const r = await rawPost(
      server.endpoint,
      JSON.stringify([JSON.parse(rpc('ping', undefined, 1)), JSON.parse(rpc('tools/list', undefined, 2))]),
    );
    expect(r.status).toBe(200);
    expect(r.json.map((m: { id: number }) => m.id)).toEqual([1, 2]);
    expect(r.json[1].result.tools).toHaveLength(9);
  });

  it('answers JSON that is not a JSON-RPC message, and an empty batch, with -32600', async () => {
    for (const body of ['{"hello":"world"}', '42', '[]']) {
      const r = await rawPost(server.endpoint, body);
      expect(r.status, body).toBe(400);
      expect(r.json.error.code, body).toBe(-32600);
    }
  });

  it('answers an unknown method with -32601 and an unknown tool with -32602', async () => {
    const method = await rawPost(server.endpoint, rpc('stages/book'));
    expect(method.json.error.code).toBe(-32601);
    const tool = await rawPost(server.endpoint, rpc('tools/call', { name: 'pay', arguments: {} }));
    expect(tool.json.error.code).toBe(-32602);
    expect(tool.json.error.message).toContain('pay');
  });

  it('answers invalid tool arguments with an isError result naming the argument', async () => {
    const r = await rawPost(
      server.endpoint,
      rpc('tools/call', { name: 'search_stages', arguments: { limit: 'lots' } }),
    );
    expect(r.status).toBe(200);
    expect(r.json.result.isError).toBe(true);
    expect(r.json.result.content[0].text).toContain('limit: limit must be an integer from 1 to 100');
  });

  it('refuses a body over the limit with 413', async () => {
    const huge = rpc('tools/call', { name: 'search_stages', arguments: { city: 'x'.repeat(MCP_BODY_LIMIT) } });
    const r = await rawPost(server.endpoint, huge);
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  });

  it('refuses a wrong content type with 415', async () => {
    const r = await rawPost(server.endpoint, rpc('ping'), { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.json.error.code).toBe(-32000);
  });

  it('answers GET and DELETE with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(server.endpoint, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await res.json()).error.code).toBe(-32000);
    }
  });

  it('refuses a browser Origin outside the allowlist with 403 and accepts the listed ones', async () => {
    const evil = await rawPost(server.endpoint, rpc('ping'), { ...JSON_ONLY, origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.json.error.message).toContain('http://evil.example');
    const garbage = await rawPost(server.endpoint, rpc('ping'), { ...JSON_ONLY, origin: 'null' });
    expect(garbage.status).toBe(403);
    for (const origin of [BASE_URL, 'https://agent.example']) {
      const ok = await rawPost(server.endpoint, rpc('ping'), { ...JSON_ONLY, origin });
      expect(ok.status, origin).toBe(200);
    }
  });

  it('never answers a client mistake with a 500', async () => {
    const bodies = [
      'null',
      '"x"',
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":{},"method":"ping"}',
      rpc('tools/call', { name: 'search_stages', arguments: 'nope' }),
      rpc('tools/call', {}),
      '\u0000',
    ];
    for (const body of bodies) {
      const r = await rawPost(server.endpoint, body);
      expect(r.status, body).toBeLessThan(500);
    }
  });
});

describe('MCP server card', () => {
  it('is served at both paths with the real endpoint', async () => {
    for (const path of ['/.well-known/mcp/server-card.json', '/api/mcp/server-card']) {
      const res = await server.app.inject(path);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cache-control']).toContain('max-age');
      const card = res.json();
      expect(card).toMatchObject({
        $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
        name: 'test.example.stages/stages-recup-points',
        version: '1.0.0',
        remotes: [{ type: 'streamable-http', url: `${BASE_URL}/api/mcp` }],
      });
      expect(card.description.length).toBeLessThanOrEqual(100);
    }
  });

  it('is served with its registered media type to a client that asks for it, with an ETag', async () => {
    for (const path of ['/.well-known/mcp/server-card.json', '/api/mcp/server-card']) {
      const asked = await server.app.inject({
        url: path,
        headers: { accept: 'application/mcp-server-card+json, application/json;q=0.5' },
      });
      expect(asked.statusCode).toBe(200);
      expect(asked.headers['content-type']).toBe('application/mcp-server-card+json; charset=utf-8');
      expect(asked.headers.vary).toContain('Accept');
      const plain = await server.app.inject({ url: path, headers: { accept: 'application/json' } });
      expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
      const refused = await server.app.inject({
        url: path,
        headers: { accept: 'application/mcp-server-card+json;q=0, application/json' },
      });
      expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(asked.body).toBe(plain.body);
      const etag = asked.headers.etag as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await server.app.inject({ url: path, headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    }
  });

  it('lists the protocol versions served, each of which the endpoint really speaks', async () => {
    const card = (await server.app.inject('/api/mcp/server-card')).json();
    const versions: string[] = card.remotes[0].supportedProtocolVersions;
    expect(versions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);
    for (const version of versions.filter((v) => v < '2026')) {
      const init = await rawPost(
        server.endpoint,
        rpc('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } }),
        { ...JSON_ONLY, accept: 'application/json, text/event-stream' },
      );
      expect(init.json.result.protocolVersion, version).toBe(version);
    }
    const discover = await rawPost(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } }),
      modernHeaders('server/discover'),
    );
    expect(discover.json.result.supportedVersions).toEqual(versions.filter((v) => v >= '2026'));
  });
});
