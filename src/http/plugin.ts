import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { registerConnectionLimits } from './connections.js';
import { type HtmlErrorPage, registerErrorHandling } from './errors.js';
import { registerLifecycle } from './lifecycle.js';
import { registerMetrics } from './metrics.js';
import { registerRateLimit } from './rate-limit.js';
import { registerRequestLog } from './request-log.js';
import { registerResponseHeaders } from './security-headers.js';

export interface HttpOptions {
  /** MCP tool names, the only values the tool-call metric's label takes. */
  knownTools: ReadonlySet<string>;
  /** The site's error page for browsers, when the site is on. */
  htmlErrorPage: HtmlErrorPage | undefined;
}

/**
 * What every door shares, before any route: draining, the request log, metrics, security
 * headers, CORS, the one error handler and rate limits (the limiter attaches itself to each
 * route as it is added).
 */
export async function registerHttp(app: FastifyInstance, options: HttpOptions): Promise<void> {
  const config = app.config;
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerLifecycle(app);
  registerConnectionLimits(app, config.edge);
  registerRequestLog(app, config.logSampleReads);
  await registerMetrics(app, config.metrics !== undefined, options.knownTools);
  registerResponseHeaders(app, config.publicBaseUrl);
  await app.register(cors, {
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
  });
  registerErrorHandling(app, options.htmlErrorPage);
  await registerRateLimit(app, config);
}
