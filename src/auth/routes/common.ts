import type { FastifyRequest } from 'fastify';

export const REGISTER_PATH = '/api/oauth/register';
export const TOKEN_PATH = '/api/oauth/token';
export const CLAIM_PATH = '/api/oauth/claim';
export const AUTHORIZE_PATH = '/api/oauth/authorize';
export const OAUTH_BODY_LIMIT = 16 * 1024;

export function mediaType(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
