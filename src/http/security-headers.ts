import type { FastifyInstance } from 'fastify';

/**
 * Headers every response carries. This is a JSON API: nothing it serves should run as a page,
 * be framed or sniffed. Set once per response from a prebuilt table.
 */
export function registerSecurityHeaders(app: FastifyInstance, publicBaseUrl: string): void {
  const headers = securityHeaders(publicBaseUrl);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}

/** The table itself, also written by hand where no hook runs (requests the HTTP parser refuses). */
export function securityHeaders(publicBaseUrl: string): Record<string, string> {
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-resource-policy': 'cross-origin',
  };
  if (publicBaseUrl.startsWith('https://'))
    headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}
