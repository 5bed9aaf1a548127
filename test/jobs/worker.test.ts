import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobs } from '../../src/db/schema.js';
import { enqueue } from '../../src/jobs/enqueue.js';
import { PermanentJobError } from '../../src/jobs/errors.js';
import { claimDueJobs, purgeFailedJobs } from '../../src/jobs/store.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** A handler's record of what it ran; `fail` decides whether a try throws. */
function recorder(fail: (payload: { n: number }, attempt: number) => Error | undefined = () => undefined) {
  const ran: number[] = [];
  return {
    ran,
    handler: async (payload: unknown, job: { attempts: number }) => {
      const p = payload as { n: number };
      ran.push(p.n);
      const err = fail(p, job.attempts);
      if (err) throw err;
    },
  };
}

const refused = () => Object.assign(new Error('connect refused for eloise@example.org'), { code: 'ECONNREFUSED' });

describe('the durable jobs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { JOBS_MAX_ATTEMPTS: '3' } });
  });
  afterAll(() => t?.close());
  const db = () => t.app.database.db;
  const rows = () => db().select().from(jobs).orderBy(jobs.id);
  const dueNow = () => db().update(jobs).set({ runAt: sql`now()` });
  beforeEach(async () => {
    await db().delete(jobs);
  });

  let kinds = 0;
  /** A kind of its own for each test: a worker has one handler per kind. */
  const kind = (handler: Parameters<TestApp['app']['jobs']['handle']>[1]) => {
    const name = `test-${++kinds}`;
    t.app.jobs.handle(name, handler);
    return name;
  };

  it('runs a job committed in a transaction once and deletes it; a rolled-back one never exists', async () => {
    const r = recorder();
    const k = kind(r.handler);
    await db().transaction(async (tx) => {
      await enqueue(tx, k, { n: 1 });
    });
    await db()
      .transaction(async (tx) => {
        await enqueue(tx, k, { n: 2 });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await t.app.jobs.drain()).toBe(1);
    expect(await t.app.jobs.drain()).toBe(0);
    expect(r.ran).toEqual([1]);
    expect(await rows()).toEqual([]);
  });

  it('retries a failing job after a backoff, then marks it failed after its last try', async () => {
    const r = recorder(() => refused());
    const k = kind(r.handler);
    await enqueue(db(), k, { n: 1 });
    await enqueue(db(), k, { n: 2 }, { secret: true, maxAttempts: 2 });

    expect(await t.app.jobs.drain()).toBe(2);
    let [plain, secret] = await rows();
    expect([plain?.state, plain?.attempts, plain?.lastError]).toEqual(['pending', 1, 'Error:ECONNREFUSED']);
    // The first retry waits 7.5–15 s (database time).
    const wait = await db()
      .select({ s: sql<number>`extract(epoch from ${jobs.runAt} - now())::float8` })
      .from(jobs)
      .where(eq(jobs.id, plain?.id as number));
    expect(Number(wait[0]?.s)).toBeGreaterThan(5);
    expect(Number(wait[0]?.s)).toBeLessThanOrEqual(15);
    expect(await t.app.jobs.drain()).toBe(0);

    await dueNow();
    expect(await t.app.jobs.drain()).toBe(2);
    [plain, secret] = await rows();
    expect([plain?.state, plain?.attempts]).toEqual(['pending', 2]);
    // Its own limit of two tries: given up, and its secret payload erased.
    expect([secret?.state, secret?.attempts, secret?.lastError, secret?.payload]).toEqual([
      'failed',
      2,
      'Error:ECONNREFUSED',
      {},
    ]);
    expect(secret?.failedAt).toBeInstanceOf(Date);

    await dueNow();
    expect(await t.app.jobs.drain()).toBe(1);
    [plain] = await rows();
    // JOBS_MAX_ATTEMPTS (3): failed, its payload kept for inspection (not secret).
    expect([plain?.state, plain?.attempts, plain?.payload]).toEqual(['failed', 3, { n: 1 }]);
    expect([...r.ran].sort()).toEqual([1, 1, 1, 2, 2]);
    await dueNow();
    expect(await t.app.jobs.drain()).toBe(0);
  });

  it('gives up at once on a permanent error', async () => {
    const r = recorder(() => new PermanentJobError('BadPayload'));
    const k = kind(r.handler);
    await enqueue(db(), k, { n: 1 });
    expect(await t.app.jobs.drain()).toBe(1);
    const [row] = await rows();
    expect([row?.state, row?.attempts, row?.lastError]).toEqual(['failed', 1, 'BadPayload']);
  });

  it('runs again a job whose worker died once its lease has run out, and only then', async () => {
    const r = recorder();
    const k = kind(r.handler);
    const id = await enqueue(db(), k, { n: 1 });
    // Another instance claims it and dies without a word.
    expect((await claimDueJobs(db(), 'dead-instance', [k], 10, 60_000)).map((j) => j.id)).toEqual([id]);
    expect(await t.app.jobs.drain()).toBe(0);
    expect(r.ran).toEqual([]);

    await db().update(jobs).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobs.id, id));
    expect(await t.app.jobs.drain()).toBe(1);
    expect(r.ran).toEqual([1]);
    expect(await rows()).toEqual([]);
  });

  it('marks failed a job whose worker died on its last try, without running it again', async () => {
    const r = recorder();
    const k = kind(r.handler);
    const id = await enqueue(db(), k, { n: 1 }, { maxAttempts: 1 });
    await claimDueJobs(db(), 'dead-instance', [k], 10, 60_000);
    await db().update(jobs).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobs.id, id));
    expect(await t.app.jobs.drain()).toBe(1);
    expect(r.ran).toEqual([]);
    const [row] = await rows();
    expect([row?.state, row?.lastError]).toEqual(['failed', 'LeaseExpired']);
  });

  it('never gives one job to two claimers at once', async () => {
    const k = kind(recorder().handler);
    await db().transaction(async (tx) => {
      for (let n = 0; n < 120; n++) await enqueue(tx, k, { n });
    });
    // Six workers claiming at the same time, in batches of seven, until nothing is left.
    const claimer = async (worker: string) => {
      const mine: number[] = [];
      for (;;) {
        const batch = await claimDueJobs(db(), worker, [k], 7, 60_000);
        if (batch.length === 0) return mine;
        mine.push(...batch.map((j) => j.id));
      }
    };
    const claims = (await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map(claimer))).flat();
    expect(claims).toHaveLength(120);
    expect(new Set(claims).size).toBe(120);
  });

  it('leaves alone the kinds it has no handler for', async () => {
    await enqueue(db(), 'nobody-handles-this', { n: 1 });
    expect(await t.app.jobs.drain()).toBe(0);
    expect((await rows()).map((j) => [j.state, j.attempts])).toEqual([['pending', 0]]);
  });

  it('deletes failed jobs once their retention has passed', async () => {
    const k = kind(recorder(() => new PermanentJobError('X')).handler);
    await enqueue(db(), k, { n: 1 });
    await enqueue(db(), k, { n: 2 });
    await t.app.jobs.drain();
    const [old] = await rows();
    await db()
      .update(jobs)
      .set({ failedAt: sql`now() - interval '8 days'` })
      .where(eq(jobs.id, old?.id as number));
    expect(await purgeFailedJobs(db(), 7 * 86_400_000)).toBe(1);
    expect((await rows()).map((j) => (j.payload as { n: number }).n)).toEqual([2]);
  });
});

describe('the worker of a running instance', () => {
  it('polls once the app is ready and is woken by a local commit', async () => {
    const t = await buildTestApp({ env: { JOBS_POLL_MS: '60000' } });
    try {
      const r = recorder();
      t.app.jobs.handle('woken', r.handler);
      await enqueue(t.app.database.db, 'woken', { n: 1 });
      // The poll at start, or the wake, runs it; the next poll is then a minute away.
      t.app.jobs.wake();
      await expect.poll(() => r.ran, { timeout: 10_000 }).toEqual([1]);
      await enqueue(t.app.database.db, 'woken', { n: 2 });
      t.app.jobs.wake();
      await expect.poll(() => r.ran, { timeout: 10_000 }).toEqual([1, 2]);
    } finally {
      await t.close();
    }
  });
});

describe('jobs metrics', () => {
  it('show the queue depth, the oldest pending job’s age and the failures, by kind', async () => {
    const t = await buildTestApp({ env: { METRICS_PORT: '9464', JOBS_MAX_ATTEMPTS: '1' } });
    try {
      t.app.jobs.handle('metered', async (payload) => {
        if ((payload as { fail?: boolean }).fail) throw refused();
      });
      const db = t.app.database.db;
      await enqueue(db, 'metered', { fail: true });
      await enqueue(db, 'metered', {});
      await t.app.jobs.drain();
      await enqueue(db, 'metered', {}, { delayMs: 60_000 });
      await db.update(jobs).set({ createdAt: sql`now() - interval '90 seconds'` }).where(eq(jobs.state, 'pending'));
      const text = await t.app.metrics?.metrics();
      const value = (line: string) =>
        Number(
          text
            ?.split('\n')
            .find((l) => l.startsWith(line))
            ?.split(' ')
            .at(-1),
        );
      expect(value('jobs_pending{kind="metered"}')).toBe(1);
      expect(value('jobs_oldest_pending_age_seconds{kind="metered"}')).toBeGreaterThanOrEqual(90);
      expect(value('jobs_failed{kind="metered"}')).toBe(1);
      expect(value('jobs_failures_total{kind="metered"}')).toBe(1);
      expect(value('jobs_done_total{kind="metered"}')).toBe(1);
    } finally {
      await t.close();
    }
  });
});
