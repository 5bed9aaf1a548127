import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/**
 * What a browser holds after opening a page with a form: its form cookie and the form's token when
 * the page is a signed-in area's or a private one ('' on the public pages, whose forms carry none).
 */
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
  const jar = cookie || (set ? String(Array.isArray(set) ? set[0] : set).split(';')[0] : '');
  const formToken = TOKEN_FIELD.exec(res.body)?.[1] ?? '';
  expect(res.body, `a form on ${path}`).toContain('<form');
  return { cookie: jar as string, formToken, html: res.body };
}

export const PERSON = {
  firstName: 'Éloïse',
  lastName: 'N’Diaye-Martin',
  email: 'eloise.ndiaye@example.org',
  phone: '06 12 34 56 78',
  reason: 'voluntary',
  consent: 'yes',
};

/** Posts the reservation form of a session as this browser (with its cookie, when it has one). */
export function submit(
  app: FastifyInstance,
  sessionId: string,
  form: OpenForm,
  fields: Record<string, string> = PERSON,
  /** Headers to add, or to leave out (undefined): the request of a browser without fetch metadata, say. */
  headers: Record<string, string | undefined> = {},
) {
  const sent: Record<string, string | undefined> = {
    'content-type': 'application/x-www-form-urlencoded',
    ...(form.cookie ? { cookie: form.cookie } : {}),
    'sec-fetch-site': 'same-origin',
    ...headers,
  };
  return app.inject({
    method: 'POST',
    url: `/stages/${sessionId}/reservation`,
    headers: Object.fromEntries(
      Object.entries(sent).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    payload: new URLSearchParams({ website: '', ...fields }).toString(),
  });
}

/**
 * The browser after a booking's answer: the form cookie the answer set when it had none (it leads a
 * resubmission from this browser to its reservation).
 */
export function afterAnswer(form: OpenForm, res: { headers: Record<string, unknown> }): OpenForm {
  const set = res.headers['set-cookie'];
  const cookie = set ? String(Array.isArray(set) ? set[0] : set).split(';')[0] : undefined;
  return cookie ? { ...form, cookie } : form;
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
