import type { FastifyInstance } from 'fastify';

export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** JSON-LD blocks are data, not scripts: script-src 'none' does not stop them. */
export const HTML_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Headers every response carries, set in one hook as each request arrives: the security headers
 * (this is a JSON API: nothing it serves should run as a page, be framed or sniffed), from a
 * prebuilt table; the request id; and, while the instance drains (http/lifecycle.ts),
 * `Connection: close`. Requests the router refuses get the same by hand (http/client-errors.ts).
 * Needs registerLifecycle first.
 */
export function registerResponseHeaders(app: FastifyInstance, publicBaseUrl: string): void {
  const headers = securityHeaders(publicBaseUrl);
  const lifecycle = app.lifecycle;
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    reply.header('x-request-id', request.id);
    if (lifecycle.draining) reply.header('connection', 'close');
    done();
  });
  // HTML pages (the site) need their own stylesheet; nothing else: no scripts, no other origin.
  // A route that chose its own policy (the API reference at /docs) keeps it.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (
      typeof type === 'string' &&
      type.startsWith('text/html') &&
      reply.getHeader('content-security-policy') === API_CSP
    )
      reply.header('content-security-policy', HTML_CSP);
    done(null, payload);
  });
}

/** The table itself, also written by hand where no hook runs (requests the HTTP parser refuses). */
export function securityHeaders(publicBaseUrl: string): Record<string, string> {
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'content-security-policy': API_CSP,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': 'cross-origin',
  };
  if (publicBaseUrl.startsWith('https://'))
    headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}
