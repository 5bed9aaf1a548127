import type { FastifyReply } from 'fastify';

/** RFC 6749 §4.1.2.1 and §5.2, and RFC 7591 §3.2.2 error codes used by this server. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'unsupported_response_type'
  | 'invalid_client'
  /** RFC 6749 §5.2: the client may not use this grant (its metadata document does not list it). */
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_client_metadata'
  /** RFC 7591 §3.2.2. */
  | 'invalid_redirect_uri'
  /** RFC 6749 §4.1.2.1, §5.2: the code flow's own errors. */
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  /** RFC 6750 §3.1: a presented bearer token is not valid (the claim endpoints). */
  | 'invalid_token'
  /** RFC 8628 §3.5: polled sooner than the interval. */
  | 'slow_down';

/** An OAuth error response: `{error, error_description}` with the given status. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** Sent as WWW-Authenticate (401 invalid_client). */
    readonly challenge?: string,
  ) {
    super(description);
  }
}

export function sendOAuthError(reply: FastifyReply, err: OAuthError): FastifyReply {
  if (err.challenge) reply.header('www-authenticate', err.challenge);
  return reply
    .code(err.status)
    .type('application/json; charset=utf-8')
    .send({ error: err.error, error_description: err.description });
}
