import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnnouncedApp, announcedApp } from '../helpers/announced-app.js';
import type { TestDatabase } from '../helpers/database.js';
import { SESSIONS } from '../helpers/fixtures.js';

/**
 * A write's instance catches up once the commit returned (the write is answered once its snapshot
 * holds it), and the database announces the change to every instance, this one included. When the
 * announcement arrives while that catch-up runs, the catch-up, begun after the commit, reads the
 * change: the announcement is owed no catch-up of its own (catalogue.ts). One that the catch-up in
 * flight does not hold is. Here the test delivers the announcements, so that their moment is known.
 */
describe('announcements that arrive while a catch-up runs', () => {
  let t: AnnouncedApp;
  let db: TestDatabase;
  let app: FastifyInstance;
  let announce: (payload?: string) => void;

  beforeAll(async () => {
    t = await announcedApp();
    ({ db, app, announce } = t);
  });
  afterAll(() => t.close());

  const session = SESSIONS.lyonMar5;
  const setPrice = (cents: number) =>
    db.database.db.execute(sql`update stage_sessions set price_cents = ${cents} where id = ${session.id}::uuid`);
  const version = () => app.catalogue.snapshot.version;
  const served = async () =>
    ((await app.inject({ method: 'GET', url: `/api/stages/${session.id}` })).json() as { priceEuros: number })
      .priceEuros;

  it('are not read again when the catch-up begun after the commit holds them', async () => {
    const before = app.catalogue.catchUps;
    const from = version();
    for (let i = 1; i <= 5; i++) {
      await setPrice(30_000 + i);
      const caughtUp = app.catalogue.refresh(); // as a write does once its commit returned
      announce(String(from + i)); // its announcement, while that catch-up runs
      await caughtUp;
      await new Promise((r) => setTimeout(r, 20));
      expect(await served()).toBe(300 + i / 100);
    }
    expect(version()).toBe(from + 5);
    expect(app.catalogue.catchUps - before).toBe(5);
  });

  it('are caught up with when the catch-up in flight began before their change', async () => {
    const before = app.catalogue.catchUps;
    const from = version();
    const caughtUp = app.catalogue.refresh(); // reads the log as it is: nothing new
    await setPrice(31_000); // committed after that catch-up began
    announce(String(from + 1));
    await caughtUp;
    await new Promise((r) => setTimeout(r, 50));
    expect(version()).toBe(from + 1);
    expect(await served()).toBe(310);
    // Two, unless the first read came to the database after the commit (a pool has several connections).
    expect(app.catalogue.catchUps - before).toBeLessThanOrEqual(2);
  });

  it('are caught up with when they carry no version', async () => {
    const before = app.catalogue.catchUps;
    const caughtUp = app.catalogue.refresh();
    announce(undefined);
    await caughtUp;
    await new Promise((r) => setTimeout(r, 50));
    expect(app.catalogue.catchUps - before).toBe(2);
  });
});
