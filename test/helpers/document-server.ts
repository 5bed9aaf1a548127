import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SelfSigned } from './tls.js';

/** What the server answers at one path. `hang`: it sends nothing until closed (a slow host). */
export interface Served {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  hang?: boolean;
}

export interface DocumentServer {
  /** http://127.0.0.1:<port>, or https:// when served with a certificate. */
  base: string;
  /** Serves `served` at `path`; a body that is not a string is sent as JSON. Returns the full URL. */
  serve(path: string, served: Served): string;
  /** How many requests `path` received. */
  hits(path: string): number;
  close(): Promise<void>;
}

/**
 * A client's own web server on the loopback interface, serving metadata documents and key sets
 * (what a test configuration allows with CIMD_ALLOW_HTTP_LOOPBACK), counting what it is asked.
 * With `tls`, over https with that certificate (self-signed: see helpers/tls.ts).
 */
export async function documentServer(options: { tls?: SelfSigned } = {}): Promise<DocumentServer> {
  const routes = new Map<string, Served>();
  const counts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const served = routes.get(path);
    if (!served) return response.writeHead(404).end();
    if (served.hang) {
      hanging.add(response);
      return;
    }
    const body = typeof served.body === 'string' ? served.body : JSON.stringify(served.body);
    response.writeHead(served.status ?? 200, { 'content-type': 'application/json', ...served.headers }).end(body);
  };
  const server = options.tls ? createHttpsServer(options.tls, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    serve(path, served) {
      routes.set(path, served);
      return `${base}${path}`;
    },
    hits: (path) => counts.get(path) ?? 0,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
