import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Gauge, Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    /** The Prometheus registry, when METRICS_PORT is set. */
    metrics: Registry | undefined;
  }
}

// A label value for requests that matched no route: raw paths would make the label unbounded.
const UNMATCHED = 'unmatched';

/**
 * Prometheus metrics (prom-client). Registered only when metrics are on; served by a listener
 * of their own (startMetricsServer), never on the public port.
 */
export async function registerMetrics(
  app: FastifyInstance,
  enabled: boolean,
  knownTools: ReadonlySet<string>,
): Promise<void> {
  if (!enabled) {
    app.decorate('metrics', undefined);
    return;
  }
  // Loaded only when metrics are on.
  const { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } = await import('prom-client');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  observeRequests(app, registry, knownTools, Counter, Histogram);
  stateGauges(app, registry, Gauge);
  app.decorate('metrics', registry);
}

type Prom = typeof import('prom-client');

/** Request durations by route pattern, and MCP tool calls by tool. */
function observeRequests(
  app: FastifyInstance,
  registry: Registry,
  knownTools: ReadonlySet<string>,
  Counter: Prom['Counter'],
  Histogram: Prom['Histogram'],
): void {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const toolCalls = new Counter({
    name: 'mcp_tool_calls_total',
    help: 'MCP tools/call requests, by tool (unknown names counted as "unknown").',
    labelNames: ['tool'],
    registers: [registry],
  });
  // Synchronous, as its work is: no promise to settle per request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    duration.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    if (route === '/api/mcp' && request.method === 'POST') {
      // The MCP route keeps its body as text (the SDK parses it); re-read it only for tool calls.
      const messages = toolCallMessages(request.body);
      for (const message of messages) {
        const call = message as { method?: unknown; params?: { name?: unknown } } | null;
        if (call?.method !== 'tools/call') continue;
        const name = call.params?.name;
        toolCalls.inc({ tool: typeof name === 'string' && knownTools.has(name) ? name : 'unknown' });
      }
    }
    done();
  });
}

/** The read model, the rate-limit store, the database pool and draining, read at scrape time. */
function stateGauges(app: FastifyInstance, registry: Registry, Gauge: Prom['Gauge']): void {
  // Read at scrape time (prom-client calls `collect`), so that nothing on the request path pays for them.
  const snapshot = () => app.catalogue.snapshot;
  gauge(Gauge, registry, 'catalogue_version', 'Version of the served read model.', (g) => g.set(snapshot().version));
  gauge(Gauge, registry, 'catalogue_sessions', 'Sessions in the served read model, past ones included.', (g) =>
    g.set(snapshot().sessions.length),
  );
  gauge(Gauge, registry, 'catalogue_centres', 'Centres in the served read model.', (g) =>
    g.set(snapshot().centreCount),
  );
  gauge(
    Gauge,
    registry,
    'catalogue_updated_timestamp_seconds',
    "Time of the catalogue's last change (Unix seconds).",
    (g) => g.set(snapshot().updatedAt.getTime() / 1000),
  );
  gauge(
    Gauge,
    registry,
    'rate_limit_store_up',
    'Whether the rate-limit store answers (1) or requests are let through uncounted (0); absent when limiting is off.',
    (g) => {
      g.reset();
      const status = app.rateLimitStatus();
      if (status) g.set({ store: status.store }, status.status === 'up' ? 1 : 0);
    },
    ['store'],
  );
  gauge(
    Gauge,
    registry,
    'database_pool_connections',
    'PostgreSQL pool connections: total, idle, and clients waiting for one.',
    (g) => {
      const stats = app.database.poolStats?.();
      if (stats) for (const [state, n] of Object.entries(stats)) g.set({ state }, n);
    },
    ['state'],
  );
  gauge(Gauge, registry, 'process_draining', '1 while the instance shuts down.', (g) =>
    g.set(app.lifecycle.draining ? 1 : 0),
  );
}

function toolCallMessages(body: unknown): unknown[] {
  if (typeof body !== 'string' || !body.includes('tools/call')) return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

function gauge(
  GaugeClass: typeof Gauge,
  registry: Registry,
  name: string,
  help: string,
  collect: (g: Gauge<string>) => void,
  labelNames: string[] = [],
): void {
  new GaugeClass({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      collect(this);
    },
  });
}

/** Serves `GET /metrics` (Prometheus text format) on its own port; anything else is 404. */
export function startMetricsServer(app: FastifyInstance, port: number, host: string): Promise<Server> {
  const registry = app.metrics;
  if (!registry) throw new Error('metrics are not enabled');
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        app.log.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics collection failed\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
