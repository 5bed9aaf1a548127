import { connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await buildTestApp();
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
afterAll(() => t.close());

/** Sends raw bytes (what no well-behaved client would) and returns the raw answer. */
function raw(bytes: Buffer | string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1', () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

function expectPromisedHeaders(headers: Record<string, string | string[] | number | undefined>) {
  expect(headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['access-control-allow-origin']).toBe('*');
  expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
}

describe('place names that fold to nothing', () => {
  it.each(['!!!', '---', '\u200b', ' . '])(
    'refuses city=%j and region=%j with a 400 naming the parameter',
    async (value) => {
      for (const name of ['city', 'region']) {
        const res = await t.app.inject({ url: '/api/stages', query: { [name]: value } });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          code: 'invalid_parameters',
          errors: [{ name, reason: `${name} must contain at least one letter or digit` }],
        });
      }
    },
  );

  it('refuses them in the MCP tool too, naming the argument', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { 'content-type': 'application/json' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_stages', arguments: { city: '!!!' } },
      },
    });
    expect(res.json().result.isError).toBe(true);
    expect(res.json().result.content[0].text).toContain('city must contain at least one letter or digit');
  });

  it('still finds places with punctuation around real letters', async () => {
    const res = await t.app.inject({ url: '/api/stages', query: { city: '--lyon!!' } });
    expect(res.statusCode).toBe(200);
  });
});

describe('MCP initialize with wrongly typed params', () => {
  it.each([
    [
      { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      'protocolVersion must be a string',
    ],
    [
      { protocolVersion: '2025-06-18', capabilities: 'all', clientInfo: { name: 'x', version: '1' } },
      'capabilities must be an object',
    ],
    [
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: [] },
      'clientInfo must be an object with name and version',
    ],
    [
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 1, version: '1' } },
      'clientInfo.name must be a string',
    ],
    ['nope', 'params must be an object'],
  ])('answers -32602 with a short message (%j)', async (params, reason) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 'init-1', method: 'initialize', params },
    });
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: 'init-1',
      error: { code: -32602, message: `Invalid initialize params: ${reason}.` },
    });
  });
});

describe('MCP tools/call with wrongly typed params', () => {
  it.each([
    [{ name: 5 }, 'name must be a string'],
    [{ name: 'search_stages', arguments: 'dept=69' }, 'arguments must be an object'],
    [{}, 'name must be a string'],
  ])('answers -32602 with a short message (%j)', async (params, reason) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params },
    });
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: `Invalid tools/call params: ${reason}.` },
    });
  });
});

describe('MCP methods named like Object.prototype members', () => {
  it.each(['valueOf', 'constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'answers %s as an unknown method, not a 500 (found by npm run fuzz, seed 22)',
    async (method) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
        payload: { jsonrpc: '2.0', id: 3, method, params: null },
      });
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(res.json().error.code, res.body).not.toBe(-32603);
    },
  );
});

describe('requests the HTTP parser refuses', () => {
  it('answers raw non-ASCII bytes in the URL with problem+json and the promised headers', async () => {
    const res = await raw(
      Buffer.concat([
        Buffer.from('GET /api/stages?city='),
        Buffer.from([0xc3, 0xa9, 0x01]),
        Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
      ]),
    );
    expect(res.status).toBe(400);
    expectPromisedHeaders(res.headers);
    expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'bad_request', title: 'Bad Request' });
  });

  it('answers a URL over 16 KiB with 431', async () => {
    const res = await raw(`GET /api/stages?city=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(431);
    expectPromisedHeaders(res.headers);
    expect(JSON.parse(res.body)).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
  });

  it('answers a malformed header with 400', async () => {
    const res = await raw('GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n');
    expect(res.status).toBe(400);
    expectPromisedHeaders(res.headers);
    expect(res.body).not.toMatch(/HPE_|stack|node:/);
  });

  it('answers a URL the router cannot decode with problem+json and the promised headers', async () => {
    const res = await t.app.inject('/api/stages/%');
    expect(res.statusCode).toBe(400);
    expectPromisedHeaders(res.headers);
    expect(res.json()).toMatchObject({ status: 400, code: 'bad_url' });
  });
});

describe('methods', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'] as const)('%s /api/stages → 405 with Allow', async (method) => {
    const res = await t.app.inject({ method, url: '/api/stages' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed', title: 'Method Not Allowed' });
  });

  it('answers paths that look like route patterns with a 404 (found by npm run fuzz, seed 49151674)', async () => {
    for (const url of ['/api/*T6%20m(xU', '/api/:id', '/api/stages(x)', '/*']) {
      const res = await t.app.inject({ method: 'POST', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
  });

  it('answers a bare OPTIONS (no preflight headers) with 204 and the CORS headers', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/api/stages' });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('GET');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
