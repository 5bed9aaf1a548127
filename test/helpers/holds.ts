import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { openForm, PERSON, submit } from './booking.js';

/** POST /api/stages/{id}/holds with a claimed client's token (or none). */
export function holdPlace(app: FastifyInstance, token: string | undefined, sessionId: string, body?: object) {
  return app.inject({
    method: 'POST',
    url: `/api/stages/${sessionId}/holds`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body ? { payload: body } : {}),
  });
}

/** GET or DELETE /api/holds/{id}. */
export function holdRequest(app: FastifyInstance, method: 'GET' | 'DELETE', token: string | undefined, holdId: string) {
  return app.inject({
    method,
    url: `/api/holds/${holdId}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

/**
 * The person opens the hold's completeUrl in a browser of their own and sends its form with their
 * details (the hold's id travels in the form's hidden field, as the page wrote it).
 */
export async function bookOnHoldPage(
  app: FastifyInstance,
  completeUrl: string,
  details: Record<string, string> = PERSON,
) {
  const url = new URL(completeUrl);
  const sessionId = url.pathname.split('/')[2] as string;
  const page = await openForm(app, `${url.pathname}${url.search}`);
  const hold = /name="hold" value="([^"]+)"/.exec(page.html)?.[1];
  const posted = await submit(app, sessionId, page, { ...details, ...(hold ? { hold } : {}) });
  return { page, hold, posted };
}

/** The hold's id from a completeUrl. */
export function holdIdOf(completeUrl: string): string {
  const id = new URL(completeUrl).searchParams.get('hold');
  expect(id).toMatch(/^hld_[A-Za-z0-9_-]{22}$/);
  return id as string;
}
