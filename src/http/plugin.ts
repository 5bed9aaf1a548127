import type { FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { registerConnectionLimits } from './connections.js';
import { registerCors } from './cors.js';
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
  /** Told to anonymous callers in a 429's problem: the higher tier and where it starts. */
  higherTier?: { detail: string; href: string };
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
  await registerCors(app); // on the public API's paths only
  registerErrorHandling(app, options.htmlErrorPage, options.higherTier);
  await registerRateLimit(app, config);
}
