import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES } from '../../../src/mcp/server.js';
import { type ListeningApp, listeningApp } from '../../helpers/listening-app.js';

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

/**
 * The Inspector's CLI needs Node ≥ 22.19: this Node when it is recent enough, else Node 24 through
 * npx, as `npm run conformance` runs it (fetched from the npm registry the first time only; CI
 * fetches it before the tests, so that no test waits for a download).
 */
function inspectorCommand(): [string, string[]] {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const recent = major > 22 || (major === 22 && minor >= 19);
  return recent ? [process.execPath, []] : ['npx', ['-y', '-p', 'node@24', 'node']];
}

async function inspector(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const [command, pre] = inspectorCommand();
  const cli = require.resolve('@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  // Its catalog and secrets go to a private HOME, not the user's.
  const child = spawn(command, [...pre, cli, '--cli', t.mcpUrl.href, ...args], {
    env: { ...process.env, HOME: join(work, 'home') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, out, err };
}

interface CliToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ type: string; text: string }>;
}
async function callTool(name: string, ...pairs: string[]): Promise<CliToolResult> {
  const run = await inspector([
    '--method',
    'tools/call',
    '--tool-name',
    name,
    ...pairs.flatMap((p) => ['--tool-arg', p]),
  ]);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as CliToolResult;
}

describe('MCP Inspector CLI 2.x (Node ≥ 22.19)', { timeout: 90_000 }, () => {
  it('lists every tool', async () => {
    const run = await inspector(['--method', 'tools/list']);
    expect(run.code, run.err).toBe(0);
    const { tools } = JSON.parse(run.out) as { tools: Array<{ name: string }> };
    expect(new Set(tools.map((tool) => tool.name))).toEqual(MCP_TOOL_NAMES);
  });

  it('calls every tool with --tool-arg as users type it', async () => {
    const search = await callTool('search_stages', 'dept=69', 'limit=5');
    expect(search.isError).toBeFalsy();
    const list = search.structuredContent as {
      count: number;
      data: Array<{ id: string; centre: { slug: string; deptCode: string } }>;
    };
    expect(list.count).toBeGreaterThan(0);
    expect(list.count).toBeLessThanOrEqual(5);
    for (const s of list.data) expect(s.centre.deptCode).toBe('69');
    const first = list.data[0]!;

    const cheap = await callTool('search_stages', 'region=rhone', 'maxPrice=250', 'includeUnavailable=true', 'limit=3');
    expect(cheap.isError).toBeFalsy();
    for (const s of (cheap.structuredContent as { data: Array<{ priceEuros: number }> }).data)
      expect(s.priceEuros).toBeLessThanOrEqual(250);

    const check = await callTool('check_availability', `sessionId=${first.id}`);
    expect(check.isError).toBeFalsy();
    expect(check.structuredContent).toMatchObject({ session: { id: first.id } });

    const centre = await callTool('get_centre', `idOrSlug=${first.centre.slug}`, 'limit=2', 'includeUnavailable=false');
    expect(centre.isError).toBeFalsy();
    expect(centre.structuredContent).toMatchObject({ centre: { slug: first.centre.slug } });
    expect((centre.structuredContent as { sessions: unknown[] }).sessions.length).toBeLessThanOrEqual(2);

    const articles = await callTool('list_articles', 'query=48N', 'limit=2');
    expect(articles.isError).toBeFalsy();
    const slug = (articles.structuredContent as { articles: Array<{ slug: string }> }).articles[0]!.slug;
    const article = await callTool('get_article', `slug=${slug}`);
    expect(article.isError).toBeFalsy();
    expect(article.structuredContent).toMatchObject({ slug });

    // A mistyped argument comes back as a tool error (isError), which the CLI reports with its exit code.
    const wrong = await inspector(['--method', 'tools/call', '--tool-name', 'search_stages', '--tool-arg', 'dept=999']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.out + wrong.err).toContain("Tool 'search_stages' returned isError:true");
  });

  it('reads resources and gets a prompt', async () => {
    const resources = await inspector(['--method', 'resources/list']);
    expect(resources.code, resources.err).toBe(0);
    expect((JSON.parse(resources.out) as { resources: unknown[] }).resources.length).toBeGreaterThan(0);
    const prompt = await inspector([
      '--method',
      'prompts/get',
      '--prompt-name',
      'find_course',
      '--prompt-args',
      'town=Villeurbanne',
      'maxPrice=250',
    ]);
    expect(prompt.code, prompt.err).toBe(0);
    expect(JSON.parse(prompt.out)).toMatchObject({
      description: 'Find a course in Villeurbanne costing at most 250 €.',
    });
  });

  it('sends a bearer token given with --header', async () => {
    const before = t.exchanges.length;
    const run = await inspector(['--method', 'tools/list', '--header', `Authorization: Bearer ${token}`]);
    expect(run.code, run.err).toBe(0);
    const mcp = t.exchanges.slice(before).filter((e) => e.path === '/api/mcp' && e.method === 'POST');
    expect(mcp.length).toBeGreaterThan(0);
    for (const e of mcp) expect(e.identity).toMatchObject({ kind: 'client', clientId });
  });
});
