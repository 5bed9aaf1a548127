import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the URL carries a secret (a private link), so the line shows the route pattern instead. */
    logUrl?: boolean;
  }
  interface FastifyRequest {
    /**
     * Set by a route whose POST was answered as a successful read (an MCP call replayed by the
     * fast path): its line is sampled like a GET's.
     */
    answeredAsRead: boolean;
    /**
     * Who made a write, as its log line names them (an API key's id and name, never a secret):
     * set by whichever door authenticated the caller.
     */
    logActor: Record<string, unknown> | undefined;
  }
}

// A reservation's private link is a secret: whatever route a URL holding one reached (a 404, a
// mistyped suffix), the log line shows it redacted.
const PRIVATE_LINK = /\/reservations\/[A-Za-z0-9_-]{22}/g;

// Long enough to show any real query; a hostile 16 KB URL is not copied into every log line.
const MAX_LOGGED_URL = 512;

/**
 * One log line per request, written when it is answered (Fastify's own logging writes two, and
 * serialises the whole request for the first). Every error and every write is logged; successful
 * reads — the bulk of the traffic — are sampled at `readSampleRate` (1 logs them all).
 */
export function registerRequestLog(app: FastifyInstance, readSampleRate: number): void {
  app.decorateRequest('answeredAsRead', false);
  app.decorateRequest('logActor', undefined);
  if (['silent', 'fatal', 'error', 'warn'].includes(app.log.level)) return;
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const read =
      request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' || request.answeredAsRead;
    if (status < 400 && read && (readSampleRate <= 0 || Math.random() >= readSampleRate)) return done();
    const url =
      request.routeOptions.config.logUrl === false
        ? request.routeOptions.url
        : (request.url.length > MAX_LOGGED_URL ? `${request.url.slice(0, MAX_LOGGED_URL)}…` : request.url).replace(
            PRIVATE_LINK,
            '/reservations/…',
          );
    const fields = {
      method: request.method,
      url,
      route: request.routeOptions.url,
      statusCode: status,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(status < 400 && read ? { sampled: readSampleRate } : {}),
      ...(request.logActor ? request.logActor : {}),
    };
    if (status >= 500) request.log.error(fields, 'request answered');
    else request.log.info(fields, 'request answered');
    done();
  });
}
