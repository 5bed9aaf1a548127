import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError } from '../core/errors.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/unavailable.js';
import { withoutCorsOffApi } from './cors.js';
import { type ParameterError, type Problem, problem, sendProblem } from './problem.js';
import { isAnonymousLimit } from './rate-limit.js';

/** Fastify's own client-error codes and the problem code each becomes. */
const CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_content_length',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'empty_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_BAD_URL: 'bad_url',
  FST_ERR_ASYNC_CONSTRAINT: 'bad_request',
};

export function parameterErrors(
  issues: ReadonlyArray<{ instancePath: string; message?: string | undefined }>,
  context: string,
): ParameterError[] {
  const seen = new Set<string>();
  const errors: ParameterError[] = [];
  for (const issue of issues) {
    const name = issue.instancePath.split('/').filter(Boolean)[0] ?? context;
    const reason = issue.message ?? 'is invalid';
    const key = `${name}\u0000${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push({ name, reason });
  }
  return errors;
}

/** Renders the site's error page for a status (the site's own wording). */
export type HtmlErrorPage = (status: number) => string;

/**
 * A browser asking for a page (Accept names text/html) outside the API gets an HTML error page;
 * API paths and every other client (curl sends *\/*) keep problem details.
 */
export function wantsHtml(request: FastifyRequest): boolean {
  if (request.url.startsWith('/api/') || request.url === '/api') return false;
  return (request.headers.accept ?? '').includes('text/html');
}

function sendHtml(reply: FastifyReply, status: number, page: HtmlErrorPage): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page(status));
}

/**
 * A refusal the domain threw (core/errors.ts): problem details with its status, code, message and
 * the fields at fault; a browser asking for a page gets the error page of that status.
 */
function sendDomainError(reply: FastifyReply, err: DomainError, html: HtmlErrorPage | undefined): FastifyReply {
  if (html) return sendHtml(reply, err.status, html);
  return sendProblem(reply, problem(err.status, err.code, err.message, fieldsAtFault(err)));
}

/** `errors`, and with a count (imports) how many there are in all and whether the list stops short. */
function fieldsAtFault({ errors, errorCount }: DomainError): Partial<Problem> {
  if (!errors) return {};
  if (errorCount === undefined) return { errors };
  return { errors, errorCount, truncated: errorCount > errors.length };
}

/**
 * One error handler for the whole service: RFC 9457 problem details, never a stack trace or
 * an internal message. Domain refusals (DomainError) are answered here, once, for every route
 * that throws them. Routes with their own error format (OAuth, MCP, the reservation form) answer
 * before this. With `htmlPage` (the site is on), browsers get readable pages instead.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  htmlPage?: HtmlErrorPage,
  higherTier?: { detail: string; href: string },
): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const html = htmlPage && wantsHtml(request) ? htmlPage : undefined;
    if (hasZodFastifySchemaValidationErrors(err)) {
      const errors = parameterErrors(err.validation, err.validationContext ?? 'request');
      const detail = errors.map((e) => `${e.name}: ${e.reason}`).join('; ');
      return sendProblem(
        reply,
        problem(400, 'invalid_parameters', detail, { errors, instance: request.url.split('?')[0] }),
      );
    }
    if (err instanceof DomainError) return sendDomainError(reply, err, html);
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err }, 'database unavailable; answered 503');
      reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS);
      return sendProblem(
        reply,
        problem(503, 'database_unavailable', 'The database is unavailable right now. Retry after a few seconds.'),
      );
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (html) return sendHtml(reply, status, html);
      const code = CLIENT_ERRORS[err.code] ?? (status === 429 ? 'rate_limited' : 'bad_request');
      // An anonymous caller out of budget learns that a higher tier exists, and where it starts.
      const hint = higherTier && isAnonymousLimit(err) ? { higherTier } : {};
      return sendProblem(reply, problem(status, code, err.message, { instance: request.url.split('?')[0], ...hint }));
    }
    request.log.error({ err }, 'request failed');
    if (html) return sendHtml(reply, Math.max(status, 500), html);
    const code = status === 503 ? 'unavailable' : 'internal_error';
    const detail =
      status === 503
        ? 'The service is temporarily unavailable. Retry later.'
        : 'An unexpected error occurred. It has been logged.';
    return sendProblem(reply, problem(Math.max(status, 500), code, detail));
  });

  app.setNotFoundHandler(async (request, reply) => {
    // Misses cost the caller a request too: probing paths is not free.
    await request.server.chargeRateLimit?.(request, reply);
    withoutCorsOffApi(reply, request.url);
    const path = request.url.split('?')[0] ?? '/';
    const allow = allowedMethods(app, path);
    if (allow.length > 0) {
      reply.header('allow', allow.join(', '));
      return sendProblem(
        reply,
        problem(
          405,
          'method_not_allowed',
          `${request.method} is not allowed on ${path}. Allowed: ${allow.join(', ')}.`,
          {
            instance: path,
          },
        ),
      );
    }
    if (htmlPage && wantsHtml(request)) return sendHtml(reply, 404, htmlPage);
    return sendProblem(
      reply,
      problem(404, 'not_found', `No resource at ${request.method} ${path}. See /openapi.json and /llms.txt.`),
    );
  });
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods a path has routes for (static paths; the service's public paths all are). */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  const url = path.replace(/\/{2,}/g, '/').replace(/(.)\/+$/, '$1');
  // hasRoute reads its url as a route pattern ("*", ":x", "(regex)"): only plain paths are asked.
  if (url.length > 200 || !/^[A-Za-z0-9._~/-]+$/.test(url)) return [];
  try {
    return METHODS.filter((method) => app.hasRoute({ method, url }));
  } catch {
    return [];
  }
}
