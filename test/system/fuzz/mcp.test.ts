import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { expectCleanAnswer, fuzz, hostileJson, hostileText } from '../../helpers/fuzz.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  expect((await t.app.inject('/api/health')).statusCode).toBe(200);
  await t.close();
});

const TOOLS = ['search_stages', 'check_availability', 'get_centre', 'list_articles', 'get_article'];
const ARGUMENTS = [
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
  'sessionId',
  'idOrSlug',
  'topic',
  'query',
  'slug',
];
const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'server/discover', 'notifications/initialized'];
const VERSIONS = [undefined, '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'garbage'];

const send = (body: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { 'content-type': 'application/json', ...headers },
    payload: body,
  });

const toolCall = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 })),
  method: fc.constant('tools/call'),
  params: fc.record({
    name: fc.oneof(fc.constantFrom(...TOOLS), hostileText),
    arguments: fc.dictionary(fc.oneof(fc.constantFrom(...ARGUMENTS), hostileText), hostileJson, { maxKeys: 5 }),
  }),
});

const anyMessage = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), hostileJson),
    id: hostileJson,
    method: fc.oneof(fc.constantFrom(...METHODS, 'valueOf', 'constructor', '__proto__'), hostileText),
    params: hostileJson,
  },
  { requiredKeys: [] },
);

describe('fuzz: MCP bodies and tool arguments', () => {
  it('answers any tool call with a result or a JSON-RPC error, in every revision', async () => {
    await fuzz(fc.tuple(toolCall, fc.constantFrom(...VERSIONS)), async ([call, version]) => {
      const res = await send(JSON.stringify(call), version ? { 'mcp-protocol-version': version } : {});
      expectCleanAnswer(res, 'jsonrpc');
      expect([200, 400, 404, 406]).toContain(res.statusCode);
    });
  });

  it('answers any JSON-RPC-shaped message, batch or raw text with JSON-RPC', async () => {
    const body = fc.oneof(
      anyMessage.map((m) => JSON.stringify(m)),
      fc.array(anyMessage, { maxLength: 4 }).map((m) => JSON.stringify(m)),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.string({ unit: 'binary', maxLength: 100 }),
    );
    await fuzz(fc.tuple(body, fc.constantFrom(...VERSIONS)), async ([text, version]) => {
      const res = await send(text, version ? { 'mcp-protocol-version': version } : {});
      expectCleanAnswer(res, 'jsonrpc');
    });
  });

  it('answers any Authorization header with the anonymous tier, a client, or a 401 challenge', async () => {
    const header = fc.oneof(
      hostileText,
      hostileText.map((s) => `Bearer ${s}`),
      fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map(([a, b, c]) => `Bearer ${a}.${b}.${c}`),
    );
    await fuzz(header, async (authorization) => {
      const value = authorization.replace(/[\r\n]/g, '');
      let res: Awaited<ReturnType<typeof send>>;
      try {
        res = await send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { authorization: value });
      } catch {
        return; // a header Node itself refuses to send
      }
      expectCleanAnswer(res, 'jsonrpc');
      expect([200, 401]).toContain(res.statusCode);
      if (res.statusCode === 401) expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    });
  });
});
