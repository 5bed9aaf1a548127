import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** What a browser holds after opening a session page: its form cookie and the form's token. */
export interface OpenForm {
  cookie: string;
  formToken: string;
  html: string;
}

const TOKEN_FIELD = /name="formToken" value="([^"]+)"/;

/** Opens a page with a form as a browser would (cookie set by the answer, token read from the page). */
export async function openForm(app: FastifyInstance, path: string, cookie?: string): Promise<OpenForm> {
  const res = await app.inject({ url: path, headers: cookie ? { cookie } : {} });
  expect(res.statusCode).toBe(200);
  const set = res.headers['set-cookie'];
  const jar = cookie ?? String(Array.isArray(set) ? set[0] : set).split(';')[0];
  const formToken = TOKEN_FIELD.exec(res.body)?.[1];
  expect(formToken, `a form on ${path}`).toBeDefined();
  return { cookie: jar as string, formToken: formToken as string, html: res.body };
}

export const PERSON = {
  firstName: 'Éloïse',
  lastName: 'N’Diaye-Martin',
  email: 'eloise.ndiaye@example.org',
  phone: '06 12 34 56 78',
  reason: 'voluntary',
  consent: 'yes',
};

/** Posts the reservation form of a session with this browser's cookie and token. */
export function submit(
  app: FastifyInstance,
  sessionId: string,
  form: OpenForm,
  fields: Record<string, string> = PERSON,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: `/stages/${sessionId}/reservation`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: form.cookie,
      'sec-fetch-site': 'same-origin',
      ...headers,
    },
    payload: new URLSearchParams({ formToken: form.formToken, website: '', ...fields }).toString(),
  });
}

/** Places left of a session, as GET /api/stages/{id} tells everybody. */
export async function placesLeft(app: FastifyInstance, sessionId: string): Promise<number> {
  const res = await app.inject(`/api/stages/${sessionId}`);
  return (res.json() as { spotsAvailable: number }).spotsAvailable;
}

/** The private link's path from a 303 answer (without its fragment, which only browsers use). */
export function privatePath(location: unknown): string {
  expect(String(location)).toMatch(/^\/reservations\/[A-Za-z0-9_-]{22}(\?deja=1)?#reservation$/);
  return String(location).replace(/#.*$/, '');
}
