import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ArticleLibrary } from '../../src/articles/articles.js';
import { replaceCatalogue } from '../../src/catalogue/repository.js';
import { BASE_URL, frozenClock, testConfig } from '../helpers/app.js';
import { afterAnswer, openForm, PERSON, privatePath, submit } from '../helpers/booking.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW } from '../helpers/fixtures.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/** The service with a mail server, a frozen clock, and every log line it writes kept. */
export interface AlertWorld {
  app: FastifyInstance;
  db: TestDatabase;
  smtp: TestSmtpServer;
  clock: ReturnType<typeof frozenClock>;
  logs: string[];
  close(): Promise<void>;
}

export async function alertWorld(env: Record<string, string> = {}): Promise<AlertWorld> {
  const smtp = await startSmtpServer();
  const clock = frozenClock(FIXTURE_NOW);
  const db = await openTestDatabase();
  await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
  const logs: string[] = [];
  const app = await buildApp(
    testConfig({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Stages <alertes@stages.example.test>',
      LOG_LEVEL: 'info',
      LOG_SAMPLE_READS: '1',
      ...env,
    }),
    {
      database: db.database,
      clock,
      articles: await ArticleLibrary.load(),
      logger: { level: 'info', stream: { write: (line: string) => void logs.push(line) } },
    },
  );
  await app.ready();
  return {
    app,
    db,
    smtp,
    clock,
    logs,
    async close() {
      await app.close();
      await db.dispose();
      await smtp.close();
    },
  };
}

/** Books a place on the session with `email` from a browser of its own; its private page's path and cookie. */
export async function book(app: FastifyInstance, sessionId: string, email: string) {
  const form = await openForm(app, `/stages/${sessionId}`);
  const res = await submit(app, sessionId, form, { ...PERSON, email });
  expect(res.statusCode, res.body).toBe(303);
  return { path: privatePath(res.headers.location), cookie: afterAnswer(form, res).cookie };
}

/** The person cancels from their private page. */
export async function cancel(app: FastifyInstance, booked: { path: string; cookie: string }) {
  const page = await openForm(app, booked.path, booked.cookie);
  const res = await app.inject({
    method: 'POST',
    url: `${booked.path}/annulation`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: booked.cookie, origin: BASE_URL },
    payload: `formToken=${page.formToken}`,
  });
  expect(res.statusCode, res.body).toBe(303);
}

/** Sends a page's "Prévenez-moi" form (opened at `pagePath`) with `email`. */
export async function askAlert(
  app: FastifyInstance,
  pagePath: string,
  email: string,
  headers: Record<string, string> = {},
) {
  const page = await openForm(app, pagePath);
  const hidden: Record<string, string> = {};
  const form = /<form method="post" action="\/alertes"[^>]*>([\s\S]*?)<\/form>/.exec(page.html)?.[1] ?? '';
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    hidden[m[1] as string] = (m[2] as string).replaceAll('&amp;', '&');
  expect(form, `an alert form on ${pagePath}`).toContain('name="email"');
  // The public pages' forms carry no token: the browser's fetch metadata says where the post comes from.
  expect(hidden.formToken).toBeUndefined();
  return app.inject({
    method: 'POST',
    url: '/alertes',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
      ...headers,
    },
    payload: new URLSearchParams({ ...hidden, email }).toString(),
  });
}

/** The link in a mail's text whose path starts with `prefix`, as a path. */
export function linkIn(mail: ReceivedMail | undefined, prefix: string): string {
  const url = mail?.text.split(/\s+/).find((w) => w.startsWith(`${BASE_URL}${prefix}`));
  expect(url, `a ${prefix} link in the mail`).toBeDefined();
  return new URL(url as string).pathname;
}

/** Opens a confirmation link's page and presses its button, from a browser of its own. */
export async function confirmFrom(app: FastifyInstance, mail: ReceivedMail | undefined) {
  const path = linkIn(mail, '/alertes/confirmer/');
  const page = await openForm(app, path);
  return app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: page.cookie,
      'sec-fetch-site': 'same-origin',
    },
    payload: `formToken=${page.formToken}`,
  });
}

/** The mails received for `to`, from the `from`th on. */
export const mailsTo = (smtp: TestSmtpServer, to: string) => smtp.received.filter((m) => m.to === to);
