import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../db/unavailable.js';
import { RATE_LIMITED } from '../../http/rate-limit.js';
import { OAuthError, sendOAuthError } from '../oauth-errors.js';
import { OAUTH_BODY_LIMIT, REGISTER_PATH } from './common.js';

/** The OAuth error a Fastify error (body parsing, size, media type) becomes on this endpoint. */
function toOAuthError(err: FastifyError, request: FastifyRequest): OAuthError | undefined {
  const registration = request.routeOptions.url === REGISTER_PATH;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new OAuthError(413, 'invalid_request', `The request body is larger than ${OAUTH_BODY_LIMIT / 1024} KiB.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new OAuthError(
        415,
        'invalid_request',
        registration
          ? 'Content-Type must be application/json.'
          : 'Content-Type must be application/x-www-form-urlencoded.',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new OAuthError(
        400,
        registration ? 'invalid_client_metadata' : 'invalid_request',
        'The request body must be a JSON object of client metadata.',
      );
  }
  // RFC 6749 has no rate-limit error; temporarily_unavailable says "retry later", with Retry-After.
  if (err.code === RATE_LIMITED) return new OAuthError(429, 'temporarily_unavailable', err.message);
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return new OAuthError(status, 'invalid_request', 'The request is invalid.');
  return undefined;
}

/**
 * Every failure on the OAuth endpoints — body parsing, media type and size included — answers
 * in the OAuth format (RFC 6749 §5.2), never problem+json.
 */
export function handleOAuthErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof OAuthError) return sendOAuthError(reply, err);
    if (isDatabaseUnavailable(err)) {
      // RFC 6749 §5.2 has no 503 error code; temporarily_unavailable (§4.1.2.1) says "retry later".
      request.log.warn({ err }, 'database unavailable; answered 503');
      reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS);
      return sendOAuthError(
        reply,
        new OAuthError(
          503,
          'temporarily_unavailable',
          'The service cannot reach its database right now. Retry shortly.',
        ),
      );
    }
    const mapped = toOAuthError(err, request);
    if (mapped) return sendOAuthError(reply, mapped);
    request.log.error({ err }, 'oauth request failed');
    return sendOAuthError(
      reply,
      new OAuthError(500, 'server_error', 'An unexpected error occurred. It has been logged.'),
    );
  });
}
