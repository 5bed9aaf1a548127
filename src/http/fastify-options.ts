import { type FastifyServerOptions, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { loggableError } from '../core/loggable-error.js';
import { clientErrorHandler, frameworkErrors, requestIdFrom } from './client-errors.js';
import { timeoutOptions } from './connections.js';
import type { HtmlErrorPage } from './errors.js';
import { requestLoggerFactory } from './request-logger.js';

export type LoggerOption = boolean | { level: string; stream?: { write(line: string): void } };

/** The logger, at its level, with the one error serialiser: class and code, never SQL or its parameters. */
function loggerOptions(config: Config, logger: LoggerOption | undefined): FastifyServerOptions['logger'] {
  if (logger === false) return false;
  const base = typeof logger === 'object' ? logger : { level: config.logLevel };
  // Fastify types `err` as pino's serialiser (message and stack always); ours omits the message
  // of database errors, on purpose.
  const err = loggableError as (err: Error) => { type: string; message: string; stack: string };
  return { ...base, serializers: { err } };
}

/** A hop count trusts that many proxies nearest the server; a list trusts those addresses and ranges. */
function trustProxySetting(setting: number | string[]): string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
// Fastify types its factories as Ajv's and fast-json-stringify's; it only calls them for a
// compiler of the same shape as zod's (route schema in, validate or serialise function out).
const ZOD_COMPILERS = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as CompilersFactory;

/** The server's own settings: logging, request ids, limits, proxies, routing and schema compilers. */
export function fastifyOptions(
  config: Config,
  logger: LoggerOption | undefined,
  htmlErrorPage: HtmlErrorPage | undefined,
): FastifyServerOptions {
  return {
    logger: loggerOptions(config, logger),
    // Each request's logger is made when it first logs (http/request-logger.ts).
    ...(logger === false ? {} : { childLoggerFactory: requestLoggerFactory }),
    // The caller's x-request-id is kept only when short and plain: it is echoed and logged.
    requestIdHeader: false,
    genReqId: (request) => requestIdFrom(request.headers['x-request-id']),
    frameworkErrors: frameworkErrors(config.publicBaseUrl, htmlErrorPage),
    clientErrorHandler: clientErrorHandler(config.publicBaseUrl),
    // One sampled line per request instead (http/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 64 * 1024,
    // How long a request may take to arrive, and a connection stay idle (http/connections.ts).
    ...timeoutOptions(config.edge),
    // While shutting down, requests already on open connections are still answered (with
    // `Connection: close`, see http/lifecycle.ts) rather than refused with a 503.
    return503OnClosing: false,
    // Without TRUST_PROXY, X-Forwarded-For is ignored: nobody picks their own rate-limit bucket.
    ...(config.trustProxy === undefined ? {} : { trustProxy: trustProxySetting(config.trustProxy) }),
    // Ignore a trailing slash and duplicate slashes rather than answering 404.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    // Every schema is zod's: Fastify's default compilers (Ajv, fast-json-stringify) are never
    // loaded, about 0.2 s of every start.
    schemaController: { compilersFactory: ZOD_COMPILERS },
  };
}
