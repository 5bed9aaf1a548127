import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/connect.js';
import { keysFor } from '../helpers/admin-keys.js';
import { testConfig } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';
import { CENTRES, SESSIONS } from '../helpers/fixtures.js';
import { type AlertWorld, alertWorld, askAlert, book, cancel, confirmFrom, mailsTo } from './alert-helpers.js';

const paris = SESSIONS.parisMar12;
const watcher = 'two.instances@example.org';

let w: AlertWorld;
let second: { app: FastifyInstance; db?: Database } | undefined;
afterEach(async () => {
  await second?.app.close();
  await second?.db?.close();
  second = undefined;
  await w?.close();
});

describe('alerts across instances', () => {
  it('a cancellation on one instance queues the alert email once, whichever instances drain', async () => {
    w = await alertWorld();
    // On PostgreSQL its own pool; PGlite belongs to one process, so there it shares the handle.
    const db = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: w.db.url as string }) : undefined;
    const app = await buildApp(
      testConfig({ SMTP_URL: w.smtp.url, MAIL_FROM: 'Stages <alertes@stages.example.test>' }),
      { database: db ?? w.db.database, clock: w.clock, logger: false },
    );
    await app.ready();
    second = { app, ...(db ? { db } : {}) };

    const first = await book(w.app, paris.id, 'first@example.org');
    await askAlert(w.app, `/stages/${paris.id}`, watcher);
    await w.app.jobs.drain();
    expect((await confirmFrom(app, mailsTo(w.smtp, watcher)[0])).statusCode).toBe(200);

    await cancel(app, first);
    await Promise.all([w.app.jobs.drain(), app.jobs.drain(), w.app.jobs.drain(), app.jobs.drain()]);
    await Promise.all([w.app.jobs.drain(), app.jobs.drain()]);
    const told = mailsTo(w.smtp, watcher).filter((m) => m.subject.startsWith('Une place s’est libérée'));
    expect(told).toHaveLength(1);
  });

  it('two places freed on two instances at once: one email, the alert’s row locked by the first job', async () => {
    w = await alertWorld();
    const db = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: w.db.url as string }) : undefined;
    const app = await buildApp(
      testConfig({ SMTP_URL: w.smtp.url, MAIL_FROM: 'Stages <alertes@stages.example.test>' }),
      { database: db ?? w.db.database, clock: w.clock, logger: false },
    );
    await app.ready();
    second = { app, ...(db ? { db } : {}) };
    const keys = await keysFor(w.app, CENTRES.paris.id);
    const first = await book(w.app, paris.id, 'first@example.org');
    const more = await w.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${paris.id}/places`,
      headers: keys.partner,
      payload: { change: 1 },
    });
    expect(more.statusCode, more.body).toBe(200);
    // The second instance's page must show the place added on the first before its form takes it.
    await app.catalogue.refresh();
    const other = await book(app, paris.id, 'other@example.org');
    // And the first instance's page must show it full again (its form is the alert's).
    await w.app.catalogue.refresh();
    await askAlert(w.app, `/stages/${paris.id}`, watcher);
    await w.app.jobs.drain();
    expect((await confirmFrom(w.app, mailsTo(w.smtp, watcher)[0])).statusCode).toBe(200);

    await Promise.all([cancel(w.app, first), cancel(app, other)]);
    await Promise.all([w.app.jobs.drain(), app.jobs.drain()]);
    await Promise.all([w.app.jobs.drain(), app.jobs.drain()]);
    expect(mailsTo(w.smtp, watcher).filter((m) => m.subject.startsWith('Une place s’est libérée'))).toHaveLength(1);
  });
});
