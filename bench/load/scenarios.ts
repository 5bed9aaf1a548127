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
  /** Many distinct POST bodies, sent in turn (one after the other across all connections). */
  bodies?: string[];
  /** Made on every request (searched, or rendered): also loaded against floor-server.ts. */
  floor?: boolean;
}

/** The page of the first bookable session in the Rhône: a real bookingUrl of the demo catalogue. */
async function sessionPage(base: string): Promise<string> {
  const res = await fetch(`${base}/api/stages?dept=69&limit=1`);
  const list = (await res.json()) as { data: { bookingUrl: string }[] };
  const first = list.data[0];
  if (!first) throw new Error('no session in the Rhône to benchmark');
  return new URL(first.bookingUrl).pathname;
}

/** `count` of the varied /api/stages searches, requested in turn. */
function distinctSearches(name: string, count: number, options: Pick<Scenario, 'floor'> = {}): Scenario {
  return {
    name,
    ...options,
    method: 'GET',
    path: '/api/stages',
    get paths() {
      // Built on first use: BENCH_ONLY runs that skip this scenario do not pay for it.
      const paths = variedQueries(count);
      Object.defineProperty(this, 'paths', { value: paths });
      return paths;
    },
  };
}

export const SCENARIOS: Scenario[] = [
  { name: 'page /stages/{id}', method: 'GET', path: '', resolvePath: sessionPage },
  {
    name: 'page /stages/{id} uncached',
    method: 'GET',
    path: '',
    resolvePath: sessionPage,
    uncached: true,
    floor: true,
  },
  { name: 'page / search city=lyon', method: 'GET', path: '/?city=lyon' },
  { name: 'page / search uncached', method: 'GET', path: '/?city=lyon', uncached: true, floor: true },
  { name: 'GET /api/stages?dept=69', method: 'GET', path: '/api/stages?dept=69' },
  { name: 'GET /api/stages?city=paris&limit=100', method: 'GET', path: '/api/stages?city=paris&limit=100' },
  { name: 'GET /api/stages (no filter)', method: 'GET', path: '/api/stages' },
  // 6,000 in turn are never answered from the answer cache: each is searched.
  distinctSearches('GET /api/stages 6,000 distinct (uncached)', 6000, { floor: true }),
  // The same kind of searches, few enough that every answer stays in the answer cache from its
  // second request on: what the uncached scenario would reach if searching and writing cost nothing.
  distinctSearches('GET /api/stages 1,000 distinct (answer cache)', 1000),
  ...mcpScenarios(),
];

/**
 * MCP in both eras: an `initialize`-era client (MCP-Protocol-Version header, as the SDK clients
 * send after `initialize`) and a 2026-07-28 stateless client (the `_meta` envelope, Mcp-Method and
 * Mcp-Name headers). Each posts one search_stages call repeatedly, 1,200 distinct search_stages
 * calls in turn, and tools/list.
 */
function mcpScenarios(): Scenario[] {
  const eras = [
    { label: '2025-11-25', version: '2025-11-25', envelope: undefined },
    {
      label: '2026-07-28',
      version: '2026-07-28',
      envelope: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  ];
  return eras.flatMap(({ label, version, envelope }) => {
    const headers = (method: string, name?: string): Record<string, string> => ({
      'content-type': 'application/json',
      'mcp-protocol-version': version,
      ...(envelope ? { 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) } : {}),
    });
    const meta = envelope ? { _meta: envelope } : {};
    const call = (args: Record<string, string>) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_stages', arguments: args, ...meta },
      });
    return [
      {
        name: `MCP ${label} search_stages`,
        method: 'POST' as const,
        path: '/api/mcp',
        headers: headers('tools/call', 'search_stages'),
        body: call({ dept: '69' }),
      },
      {
        name: `MCP ${label} search_stages 1,200 distinct`,
        method: 'POST' as const,
        path: '/api/mcp',
        headers: headers('tools/call', 'search_stages'),
        get bodies() {
          // The REST scenario's varied searches, as tool arguments (the tool takes the text forms).
          const bodies = variedQueries(1200).map((path) =>
            call(Object.fromEntries(new URL(path, 'http://x').searchParams)),
          );
          Object.defineProperty(this, 'bodies', { value: bodies });
          return bodies;
        },
      },
      {
        name: `MCP ${label} tools/list`,
        method: 'POST' as const,
        path: '/api/mcp',
        headers: headers('tools/list'),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', ...(envelope ? { params: meta } : {}) }),
      },
    ];
  });
}
