import type { FastifyReply } from 'fastify';
import { HTML_CONTENT_TYPE } from './render.js';

/**
 * A page for one person only (a reservation, a signed-in area, a sign-in step): never stored by a
 * shared cache or the browser's, never indexed.
 */
export function privateHtml(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .type(HTML_CONTENT_TYPE)
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex')
    .send(body);
}
