import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL } from '../helpers/app.js';
import { type McpTestServer, rawPost, startMcpTestServer } from '../helpers/mcp.js';

/*
 * What a host pays, in its model's context, to offer our tools: the tools/list answer as a client
 * receives it. Sizes, not timings: a test is the right place for them.
 *
 * Budget: the whole list at most 12 KB, no tool over 4 KB — the claimed agents' tools (watches,
 * hold_place, release_hold) included. The list is close to it: a new tool must make room (terser
 * text, shared definitions), never drop what models need.
 */
const LIST_MAX_BYTES = 12 * 1024;
const TOOL_MAX_BYTES = 4 * 1024;

let server: McpTestServer;
beforeAll(async () => {
  server = await startMcpTestServer();
});
afterAll(() => server.close());

const JSON_ONLY = { 'content-type': 'application/json' };
const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'size', version: '1' },
};

const ERAS = [
  {
    label: `${MODERN} (stateless)`,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } },
    headers: { ...JSON_ONLY, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
  },
  {
    label: '2025-11-25 (initialize)',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    headers: { ...JSON_ONLY, 'mcp-protocol-version': '2025-11-25' },
  },
];

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe.each(ERAS)('tools/list size, revision $label', (era) => {
  it(`is at most ${LIST_MAX_BYTES} bytes in all, and no tool is over ${TOOL_MAX_BYTES}`, async () => {
    const r = await rawPost(server.endpoint, JSON.stringify(era.body), era.headers);
    expect(r.status).toBe(200);
    const tools = r.json.result.tools as Array<{ name: string }>;
    expect(tools).toHaveLength(9);
    // The bytes on the wire: the whole JSON-RPC answer, envelope included.
    const sizes = Object.fromEntries(tools.map((t) => [t.name, bytes(t)]));
    console.info(`tools/list ${era.label}: ${Buffer.byteLength(r.text)} bytes`, sizes);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(LIST_MAX_BYTES);
    for (const [name, size] of Object.entries(sizes)) expect(size, name).toBeLessThanOrEqual(TOOL_MAX_BYTES);
  });
});

describe('what a host shows of the tools', () => {
  it('gives each tool one title and an icon served by this service, and the server an icon', async () => {
    const list = await rawPost(
      server.endpoint,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      ERAS[1]?.headers,
    );
    const tools = list.json.result.tools as Array<{
      name: string;
      title?: string;
      annotations?: { title?: string };
      icons?: Array<{ src: string }>;
    }>;
    const init = await rawPost(
      server.endpoint,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
      }),
      JSON_ONLY,
    );
    const serverIcons = init.json.result.serverInfo.icons as Array<{ src: string }>;
    expect(serverIcons).toHaveLength(1);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.annotations?.title, tool.name).toBeUndefined();
      expect(tool.icons, tool.name).toHaveLength(1);
    }
    for (const { src } of [...serverIcons, ...tools.flatMap((t) => t.icons ?? [])]) {
      const url = new URL(src);
      expect(url.origin).toBe(new URL(BASE_URL).origin);
      const r = await server.app.inject(url.pathname);
      expect(r.statusCode, src).toBe(200);
      expect(r.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(r.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(r.body).not.toMatch(/<script|on[a-z]+=/i);
      expect(r.headers['content-security-policy']).toContain("default-src 'none'");
    }
  });
});
