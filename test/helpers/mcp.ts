import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CatalogueData } from '../../src/catalogue/repository.js';
import { buildTestApp, frozenClock, type TestApp } from './app.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW } from './fixtures.js';

export interface McpTestServer extends TestApp {
  /** The MCP endpoint on the listening test server. */
  endpoint: URL;
  origin: string;
}

/** The app on the fixture catalogue, listening on a loopback port so real clients can reach it. */
export async function startMcpTestServer(
  env: Record<string, string> = {},
  catalogue: CatalogueData = FIXTURE_CATALOGUE,
): Promise<McpTestServer> {
  const t = await buildTestApp({ catalogue, clock: frozenClock(FIXTURE_NOW), env });
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { ...t, endpoint: new URL('/api/mcp', address), origin: address };
}

export type Era = { label: string; options: ConstructorParameters<typeof Client>[1] };

/** The client configurations every tool test runs under: the stateless revision and older ones. */
export const ERAS: Era[] = [
  { label: '2026-07-28 (stateless)', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
  { label: '2025-11-25 (initialize)', options: {} },
  { label: '2025-06-18 (initialize)', options: { supportedProtocolVersions: ['2025-06-18'] } },
  { label: '2025-03-26 (initialize)', options: { supportedProtocolVersions: ['2025-03-26'] } },
];

export async function connect(endpoint: URL, era: Era, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'stages-test', version: '1.0.0' }, era.options);
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
  return client;
}

/** POSTs raw text to the endpoint and returns status, headers and the parsed body (when JSON). */
export async function rawPost(
  endpoint: URL,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  const res = await fetch(endpoint, { method: 'POST', headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC bodies are inspected structurally in tests
  return { status: res.status, headers: res.headers, text, json: json as any };
}
