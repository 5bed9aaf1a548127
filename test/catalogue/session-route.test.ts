import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL } from '../helpers/app.js';
import { CENTRES, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { type McpTestServer, startMcpTestServer } from '../helpers/mcp.js';

let server: McpTestServer;
let client: Client;
beforeAll(async () => {
  server = await startMcpTestServer();
  client = new Client({ name: 'session-route-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(server.endpoint));
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const get = (id: string) => server.app.inject(`/api/stages/${id}`);

describe('GET /api/stages/{id}', () => {
  it.each([
    ['available', SESSIONS.lyonMar5.id],
    ['full', SESSIONS.parisMar6Full.id],
    ['past', SESSIONS.lyonPast.id],
  ])('answers a %s session exactly as the check_availability tool does', async (status, id) => {
    const res = await get(id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const body = res.json();
    expect(body.status).toBe(status);
    const tool = await client.callTool({ name: 'check_availability', arguments: { sessionId: id } });
    expect(body).toEqual(tool.structuredContent);
  });

  it('says what a person needs to book: places, price, course number, booking page and centre', async () => {
    const body = (await get(SESSIONS.lyonMar5.id)).json();
    expect(body).toMatchObject({
      status: 'available',
      bookable: true,
      spotsAvailable: 3,
      priceEuros: 239,
      courseNumber: SESSIONS.lyonMar5.courseNumber,
      bookingUrl: `${BASE_URL}/stages/${SESSIONS.lyonMar5.id}`,
      checkedAt: new Date(FIXTURE_NOW).toISOString(),
      session: { id: SESSIONS.lyonMar5.id, centre: { agrementNumber: CENTRES.lyon.agrementNumber } },
    });
    expect(body.message).toContain('3 places left');
    expect((await get(SESSIONS.lyonMar5.id.toUpperCase())).json()).toEqual(body);
  });

  it('answers 404 problem+json for an id no session has', async () => {
    const id = '00000000-0000-4000-8000-999999999999';
    const res = await get(id);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({
      type: 'about:blank',
      status: 404,
      code: 'not_found',
      detail: expect.stringContaining(id),
      instance: `/api/stages/${id}`,
    });
  });

  it.each(['abc', '12345', `${SESSIONS.lyonMar5.id}x`, 'null', '%20'])(
    'answers 400 problem+json naming id for the malformed id %s',
    async (id) => {
      const res = await get(id);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = res.json();
      expect(body).toMatchObject({ status: 400, code: 'invalid_parameters' });
      expect(body.errors).toEqual([{ name: 'id', reason: expect.stringMatching(/UUID/) }]);
    },
  );

  it('is in the OpenAPI document with its responses, and the real answers match their schemas', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked structurally
    const doc: any = (await server.app.inject('/openapi.json')).json();
    const op = doc.paths['/api/stages/{id}']?.get;
    expect(op.operationId).toBe('getSessionAvailability');
    expect(op.parameters).toEqual([
      expect.objectContaining({
        name: 'id',
        in: 'path',
        required: true,
        schema: expect.objectContaining({ format: 'uuid' }),
      }),
    ]);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '404', '429']);

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');
    const compile = (schema: object) =>
      ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')));
    const ok = compile(op.responses['200'].content['application/json'].schema);
    for (const id of [SESSIONS.lyonMar5.id, SESSIONS.parisMar6Full.id, SESSIONS.reunionMar19.id]) {
      expect(ok((await get(id)).json()), JSON.stringify(ok.errors)).toBe(true);
    }
    expect(ok({ ...(await get(SESSIONS.lyonMar5.id)).json(), status: 'maybe' })).toBe(false);
    const notFound = compile(op.responses['404'].content['application/problem+json'].schema);
    expect(notFound((await get('00000000-0000-4000-8000-999999999999')).json())).toBe(true);
    const bad = compile(op.responses['400'].content['application/problem+json'].schema);
    expect(bad((await get('abc')).json())).toBe(true);
  });
});
