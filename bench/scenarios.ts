import { variedQueries } from './varied-queries.js';

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Many distinct GET paths, requested in turn (one after the other across all connections). */
  paths?: string[];
  /** Finds the path at run time (e.g. a session of the demo catalogue) from the service's base URL. */
  resolvePath?: (base: string) => Promise<string>;
  /** Adds a distinct `_=<n>` to every request, so that no answer cache can serve it. */
  uncached?: boolean;
}

/** The page of the first bookable session in the Rhône: a real bookingUrl of the demo catalogue. */
async function sessionPage(base: string): Promise<string> {
  const res = await fetch(`${base}/api/stages?dept=69&limit=1`);
  const list = (await res.json()) as { data: { bookingUrl: string }[] };
  const first = list.data[0];
  if (!first) throw new Error('no session in the Rhône to benchmark');
  return new URL(first.bookingUrl).pathname;
}

export const SCENARIOS: Scenario[] = [
  { name: 'page /stages/{id}', method: 'GET', path: '', resolvePath: sessionPage },
  { name: 'page /stages/{id} uncached', method: 'GET', path: '', resolvePath: sessionPage, uncached: true },
  { name: 'page / search city=lyon', method: 'GET', path: '/?city=lyon' },
  { name: 'page / search uncached', method: 'GET', path: '/?city=lyon', uncached: true },
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
