import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
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

export const auth = authResponses('An agent access token, or a partner key outside its own centre.');

/** All centres for an operator key; its own centre for a partner key. */
export function scopeOf(request: FastifyRequest): WriteScope {
  const identity = request.identity;
  return { centreId: identity.kind === 'apiKey' ? identity.centreId : null };
}

export function ifMatch(request: FastifyRequest): string | undefined {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
}
