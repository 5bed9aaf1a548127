import { variedQueries } from './varied-queries.js';

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Many distinct GET paths, requested in turn (one after the other across all connections). */
  paths?: string[];
}

export const SCENARIOS: Scenario[] = [
  { name: 'GET /api/stages?dept=69', method: 'GET', path: '/api/stages?dept=69' },
  { name: 'GET /api/stages?city=paris&limit=100', method: 'GET', path: '/api/stages?city=paris&limit=100' },
  { name: 'GET /api/stages (no filter)', method: 'GET', path: '/api/stages' },
  {
    name: 'GET /api/stages 6,000 distinct (uncached)',
    method: 'GET',
    path: '/api/stages',
    get paths() {
      // Built on first use: BENCH_ONLY runs that skip this scenario do not pay for it.
      const paths = variedQueries(6000);
      Object.defineProperty(this, 'paths', { value: paths });
      return paths;
    },
  },
  {
    name: 'MCP tools/call search_stages',
    method: 'POST',
    path: '/api/mcp',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_stages', arguments: { dept: '69' } },
    }),
  },
  {
    name: 'MCP 2026-07-28 search_stages',
    method: 'POST',
    path: '/api/mcp',
    headers: {
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'search_stages',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'search_stages',
        arguments: { dept: '69' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  },
];
