import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError } from '../../core/errors.js';
import { problemResponse } from '../../http/problem.js';
import type { WriteScope } from '../repository/scope.js';
import { uuidField } from '../schemas.js';

/** What every admin route shares: its OpenAPI tag and security, the auth answers, the caller's scope. */

export const TAGS = ['admin'];
export const ADMIN_SECURITY = [{ apiKey: [] }];

export const IdParams = z.object({ id: uuidField('id') });

/** The answers of the admin authentication (auth.ts), with what a 403 means on these routes. */
export function authResponses(forbidden: string) {
  return {
    401: problemResponse('No API key, or an unknown or revoked one (WWW-Authenticate says which).'),
    403: problemResponse(forbidden),
    429: problemResponse('Rate limit of this API key (or, before authentication, of this address) reached.'),
  };
}

export const auth = authResponses(
  'An agent access token, or a partner key outside its own centre (an id of another centre, or of nothing).',
);

/** All centres for an operator key; its own centre for a partner key. */
export function scopeOf(request: FastifyRequest): WriteScope {
  const identity = request.identity;
  return { centreId: identity.kind === 'apiKey' ? identity.centreId : null };
}

/**
 * An id this key cannot reach. To a partner key that is a 403 whether the id belongs to another
 * centre or to nothing at all, so that answers tell no one which ids exist elsewhere; an operator
 * key, which reaches everything, learns that nothing has it (404).
 */
export function unreachable(request: FastifyRequest, what: string, id: string): DomainError {
  return scopeOf(request).centreId === null
    ? new DomainError(404, 'not_found', `No ${what} has the id ${id}.`)
    : new DomainError(403, 'forbidden', `This key may only reach its own centre's ${what}s.`);
}

/** Runs `work`, and answers a 404 it throws as `unreachable` says (a 403 to a partner key). */
export async function withinReach<T>(request: FastifyRequest, what: string, id: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw err instanceof DomainError && err.status === 404 ? unreachable(request, what, id) : err;
  }
}

/** An onRequest hook: only an operator key passes, before the body is read or anything validated. */
export async function requireOperator(request: FastifyRequest): Promise<void> {
  if (request.identity.kind === 'apiKey' && request.identity.role !== 'admin')
    throw new DomainError(403, 'forbidden', 'Only an operator key (role admin) may do this.');
}

export function ifMatch(request: FastifyRequest): string | undefined {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
}
