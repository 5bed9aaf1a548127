import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isPublicApiPath } from './cors.js';
import { type HtmlErrorPage, wantsHtml } from './errors.js';
import { PROBLEM_CONTENT_TYPE, problem, sendProblem } from './problem.js';
import { HTML_CSP, securityHeaders } from './security-headers.js';

/*
 * Requests refused before any route or hook runs still get what every response promises:
 * problem+json, the security headers, CORS headers (on the public API, http/cors.ts) and a request id. Two places: requests Node's
 * HTTP parser rejects (raw socket, no Fastify request at all), and URLs Fastify's router cannot
 * decode (a Fastify reply, but no hook has run).
 */

const CORS_HEADERS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'x-request-id' };

/** A caller's request id is kept when it is short and plain; anything else is replaced. */
const REQUEST_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

/** Node's parser error codes and what they are worth to the caller. */
function statusOf(err: NodeJS.ErrnoException): number {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 431;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return 408;
    default:
      return 400;
  }
}

const DETAILS: Record<number, string> = {
  400: 'The request could not be parsed as HTTP/1.1: check the request line, the URL (percent-encode anything outside ASCII) and the headers.',
  408: 'The request was not received in time.',
  431: 'The request line and headers are too large: keep the URL and headers under 16 KiB together.',
};

/** Fastify's `clientErrorHandler`: answers on the raw socket, then closes it. */
export function clientErrorHandler(publicBaseUrl: string) {
  const security = securityHeaders(publicBaseUrl);
  // Fastify binds the handler to the instance.
  return function (this: { log: FastifyBaseLogger }, err: NodeJS.ErrnoException, socket: Socket) {
    if (err.code === 'ECONNRESET' || !socket.writable) return;
    const status = statusOf(err);
    const id = randomUUID();
    const body = JSON.stringify(problem(status, 'bad_request', DETAILS[status]));
    this.log.info({ reqId: id, code: err.code }, 'request refused by the HTTP parser');
    const headers: Record<string, string | number> = {
      'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      connection: 'close',
      'x-request-id': id,
      ...CORS_HEADERS,
      ...security,
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('\r\n')}\r\n\r\n${body}`);
  };
}

/** Fastify's `frameworkErrors`: a URL the router cannot decode, and the like. */
export function frameworkErrors(publicBaseUrl: string, htmlPage?: HtmlErrorPage) {
  const security = securityHeaders(publicBaseUrl);
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.headers({ ...security, ...(isPublicApiPath(request.url) ? CORS_HEADERS : {}), 'x-request-id': request.id });
    // A browser following a mangled link to the site gets the site's page, as everywhere else.
    if (htmlPage && wantsHtml(request)) {
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      return reply
        .code(status)
        .type('text/html; charset=utf-8')
        .headers({ 'content-security-policy': HTML_CSP, 'cache-control': 'no-store' })
        .send(htmlPage(status));
    }
    if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      return sendProblem(
        reply,
        problem(414, 'uri_too_long', 'A path segment is too long: at most 200 characters are accepted.'),
      );
    }
    const detail =
      err.code === 'FST_ERR_BAD_URL'
        ? 'The URL is not valid: a percent sign must start a valid percent-encoded byte.'
        : 'The request is not valid.';
    return sendProblem(reply, problem(400, err.code === 'FST_ERR_BAD_URL' ? 'bad_url' : 'bad_request', detail));
  };
}
