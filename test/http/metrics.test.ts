import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startMetricsServer } from '../../src/http/metrics.js';
import { MCP_TOOL_NAMES } from '../../src/mcp/server.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The value of one sample line (`name{labels} value`) whose labels include every given pair. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describe('Prometheus metrics on METRICS_PORT', () => {
  let t: TestApp;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    t = await buildTestApp({ env: { METRICS_PORT: '9464' } });
    // The test listens on a free port rather than the configured one.
    server = await startMetricsServer(t.app, 0, '127.0.0.1');
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/metrics`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await t?.close();
  });

  it('counts requests by route pattern and status, MCP calls by tool, and reports the catalogue and process', async () => {
    await t.app.inject('/api/stages?dept=69');
    await t.app.inject('/api/stages?dept=999');
    await t.app.inject('/no/such/path/12345');
    await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: MCP_HEADERS,
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_stages', arguments: {} } },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: MCP_HEADERS,
      payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'no-such-tool-x1', arguments: {} } },
    });

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();

    const ok = { route: '/api/stages', status_code: '200', method: 'GET' };
    expect(sample(text, 'http_request_duration_seconds_count', ok)).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { ...ok, status_code: '400' })).toBe(1);
    // Unknown paths share one label value: a scanner cannot blow up the series count.
    expect(sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' })).toBe(1);
    expect(text).not.toContain('/no/such/path/12345');
    expect(sample(text, 'mcp_tool_calls_total', { tool: 'search_stages' })).toBe(1);
    expect(sample(text, 'mcp_tool_calls_total', { tool: 'unknown' })).toBe(1);
    expect(text).not.toContain('no-such-tool-x1');

    const snapshot = t.app.catalogue.snapshot;
    expect(sample(text, 'catalogue_sessions')).toBe(snapshot.sessions.length);
    expect(sample(text, 'catalogue_centres')).toBe(snapshot.centreCount);
    expect(sample(text, 'catalogue_version')).toBe(snapshot.version);
    expect(sample(text, 'catalogue_updated_timestamp_seconds')).toBeCloseTo(snapshot.updatedAt.getTime() / 1000, 0);
    expect(sample(text, 'process_draining')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    if (t.app.database.kind === 'postgres') {
      expect(sample(text, 'database_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    }
  });

  it('answers only GET /metrics on its port', async () => {
    expect((await fetch(url.replace('/metrics', '/api/stages'))).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(404);
  });

  it('every tool the MCP server lists is counted under its own name', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: MCP_HEADERS,
      payload: {
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
    });
    expect(res.statusCode).toBe(200);
    const list = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' },
      payload: { jsonrpc: '2.0', id: 4, method: 'tools/list' },
    });
    const names = (list.json() as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
    expect(names.length).toBeGreaterThan(0);
    expect([...MCP_TOOL_NAMES].sort()).toEqual([...names].sort());
  });
});

describe('metrics off by default', () => {
  it('registers nothing and serves nothing on the public port', async () => {
    const t = await buildTestApp();
    try {
      expect(t.app.metrics).toBeUndefined();
      expect((await t.app.inject('/metrics')).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('refuses METRICS_PORT equal to PORT, naming the variable', () => {
    expect(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' })).toThrow(/METRICS_PORT must differ from PORT/);
    expect(() => loadConfig({ METRICS_PORT: 'abc' })).toThrow(/METRICS_PORT/);
  });
});
