import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerOptions, onRequestHookHandler } from 'fastify';
import type { Config } from '../config.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * true: the answer is a stream that stays open with nothing to say for long stretches (the
     * change stream): the idle timeout does not apply to its connection. Its own heartbeat and
     * bounds keep it honest.
     */
    longLived?: boolean;
  }
}

/*
 * What one client may hold at the edge, so that slow or silent connections cost the client and
 * not the instance (a slow-body attack once kept 1,000 requests and 2,000 descriptors open for
 * minutes, counted once by the rate limit):
 *
 * - the request, headers and body, must arrive within REQUEST_TIMEOUT_MS, and its headers within
 *   HEADERS_TIMEOUT_MS: past that Node answers 408 (http/client-errors.ts) and closes. These count
 *   only while the request arrives, never while its answer is sent: a change stream is a GET,
 *   received whole in one packet, and is never cut by them;
 * - a connection between requests waits KEEP_ALIVE_TIMEOUT_MS for the next one;
 * - a connection where no byte moves either way for IDLE_TIMEOUT_MS (an answer its client does
 *   not read, a handler that hangs) is closed — except a long-lived route's (`longLived`);
 * - at most MAX_CONNECTIONS connections are open at once; Node closes any further one on accept.
 */

/** Node checks the request and headers timeouts on this period: a fraction of the shorter one. */
function checkingInterval(edge: Config['edge']): number {
  return Math.max(10, Math.min(1000, Math.floor(Math.min(edge.requestTimeoutMs, edge.headersTimeoutMs) / 4)));
}

/** The server options that carry the timeouts (fastify-options.ts). */
export function timeoutOptions(edge: Config['edge']): Pick<
  FastifyServerOptions,
  'requestTimeout' | 'keepAliveTimeout' | 'connectionTimeout'
> & {
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    requestTimeout: edge.requestTimeoutMs,
    keepAliveTimeout: edge.keepAliveTimeoutMs,
    connectionTimeout: edge.idleTimeoutMs,
    // Options of http.createServer that Fastify does not name; the checking interval is read only
    // there (Node's default, 30 s, would let a 30 s timeout run to 60 s).
    http: {
      headersTimeout: edge.headersTimeoutMs,
      requestTimeout: edge.requestTimeoutMs,
      connectionsCheckingInterval: checkingInterval(edge),
    },
  };
}

/** Stops the idle timeout on a long-lived answer's connection, as the request starts. */
const noIdleTimeout: onRequestHookHandler = (request, _reply, done) => {
  // (inject's stand-in socket has no timers, and no timeout to stop)
  const socket: Partial<Socket> = request.raw.socket;
  socket.setTimeout?.(0);
  done();
};

/**
 * The connection cap, the idle-timeout exemption of routes marked `longLived`, and the closing of
 * connections that never sent a byte when the server closes.
 */
export function registerConnectionLimits(app: FastifyInstance, edge: Config['edge']): void {
  app.server.maxConnections = edge.maxConnections;
  // Node counts a connection that has sent nothing yet as awaiting its first request (not idle),
  // and server.close() stops the headers timeout that would end it: a spare connection an HTTP
  // client opened ahead of need (undici does, after an aborted stream) would hold the close until
  // the keep-alive timeout. Such a connection has nothing in flight: it is ended as the server closes.
  // (No 'data' listener: one would take the socket off Node's native parsing, on every connection.)
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', async () => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
  });
  app.addHook('onRoute', (route) => {
    if (route.config?.longLived !== true) return;
    const own = route.onRequest;
    route.onRequest = own === undefined ? [noIdleTimeout] : [...(Array.isArray(own) ? own : [own]), noIdleTimeout];
  });
}
