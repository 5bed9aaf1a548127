import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyReply, onSendHookHandler } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** @fastify/cors reads it: false for none, or options that override the service's. */
    cors?: false | FastifyCorsOptions;
    /**
     * Set by registerCors on a public API route that takes the service's CORS as they are: its
     * answers get the plugin's headers from a prebuilt table (see CORS_HEADERS).
     */
    corsHeaders?: true;
  }
}

/*
 * CORS only on the public API: the paths other sites' scripts are meant to read. Everything else —
 * the site's pages, a reservation's private page, the areas to come — is private by default: a
 * route whose path is not listed here gets no CORS header, and neither does a preflight or a 404
 * for its path. A new page needs nothing to stay private; a new public API path is added here.
 */

/** Public API paths, each a path or the start of one (followed by `/` or `?`). */
const PUBLIC_API = [
  '/api/stages',
  '/api/health',
  '/api/mcp',
  '/api/oauth',
  '/api/admin',
  '/.well-known',
  '/openapi.json',
  '/llms.txt',
];

/** Whether a URL (or a route pattern) is on the public API. */
export function isPublicApiPath(url: string): boolean {
  // The router ignores duplicate slashes: so does this.
  const path = url.replace(/\/{2,}/g, '/');
  return PUBLIC_API.some(
    (prefix) =>
      path.startsWith(prefix) &&
      (path.length === prefix.length || path[prefix.length] === '/' || path[prefix.length] === '?'),
  );
}

/** Removes what @fastify/cors added, when the path is private. */
export function withoutCorsOffApi(reply: FastifyReply, url: string): void {
  if (isPublicApiPath(url)) return;
  for (const name of Object.keys(reply.getHeaders())) if (name.startsWith('access-control-')) reply.removeHeader(name);
}

/** The preflight route answers every path: on a private one it says nothing a browser would take. */
const preflightOffApi: onSendHookHandler = (request, reply, payload, done) => {
  withoutCorsOffApi(reply, request.url);
  done(null, payload);
};

/** The service's CORS: every origin may read the public API. */
const CORS_OPTIONS = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  exposedHeaders: [
    'x-request-id',
    'retry-after',
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
    'www-authenticate',
    'link',
    'etag',
  ],
  maxAge: 86_400,
  // A bare OPTIONS (no preflight headers) gets an ordinary 204 with the CORS headers, not a
  // plain-text 400.
  strictPreflight: false,
} satisfies FastifyCorsOptions;

/**
 * What @fastify/cors adds, with CORS_OPTIONS, to the answer of a request that is not a preflight:
 * the origin it allows (any: no `Vary`) and the headers a script may read. The plugin works them
 * out again for every request (its options copied, the list joined); the public API's routes get
 * them from here instead (test/http/cors.test.ts compares both).
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': CORS_OPTIONS.origin,
  'access-control-expose-headers': CORS_OPTIONS.exposedHeaders.join(', '),
};

const methodsOf = (method: string | string[]) => (Array.isArray(method) ? method : [method]);

export async function registerCors(app: FastifyInstance): Promise<void> {
  // Added first, so that it sees the preflight route @fastify/cors adds, and every route after.
  app.addHook('onRoute', (route) => {
    if (route.url === '*' && route.method === 'OPTIONS') {
      const own = route.onSend;
      route.onSend = own === undefined ? [preflightOffApi] : [...(Array.isArray(own) ? own : [own]), preflightOffApi];
    } else if (route.config?.cors === undefined) {
      // A route with CORS of its own (OAuth's registration, MCP) is left to the plugin.
      if (!isPublicApiPath(route.url)) route.config = { ...route.config, cors: false };
      // No preflight reaches it: the plugin would only add CORS_HEADERS.
      else if (!methodsOf(route.method).includes('OPTIONS'))
        route.config = { ...route.config, cors: false, corsHeaders: true };
    }
  });
  // Before the plugin's own hook, so that the headers come in the same order.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.corsHeaders === true) reply.headers(CORS_HEADERS);
    done();
  });
  await app.register(cors, CORS_OPTIONS);
}
