import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { jobs } from '../db/schema.js';
import { afterMs } from './enqueue.js';

/** A job a worker holds: its lease runs until the database's now() passes `lockedUntil`. */
export interface ClaimedJob {
  id: number;
  kind: string;
  payload: unknown;
  /** This try's number, from 1: counted when claimed, so that a job that crashes its instance still runs out. */
  attempts: number;
  maxAttempts: number | null;
}

/**
 * Takes up to `limit` due jobs of the given kinds for `workerId`, for `leaseMs`: one statement, so
 * that rows locked by another worker's claim are skipped (SKIP LOCKED) rather than waited for, and a
 * row another worker has just leased is re-checked against its new lease and left alone. A job whose
 * lease ran out (its worker died) is due again. Jobs with an ordering key wait for the older ones of
 * their key: the multi-row bigserial ids give the order they were enqueued in. A job with a
 * `not_before` waits until `now` (the service's clock) reaches it.
 */
export async function claimDueJobs(
  db: Db,
  workerId: string,
  kinds: string[],
  limit: number,
  leaseMs: number,
  now: Date = new Date(),
): Promise<ClaimedJob[]> {
  if (kinds.length === 0) return [];
  const due = db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        eq(jobs.state, 'pending'),
        lte(jobs.runAt, sql`now()`),
        or(isNull(jobs.lockedUntil), lt(jobs.lockedUntil, sql`now()`)),
        inArray(jobs.kind, kinds),
        or(isNull(jobs.notBefore), lte(jobs.notBefore, now)),
        // In order per key: an older job of the same key still pending (even one leased by
        // another worker, or waiting for its retry) holds this one back.
        sql`not exists (select 1 from "jobs" as "earlier" where "earlier"."ordering_key" = "jobs"."ordering_key" and "earlier"."state" = 'pending' and "earlier"."id" < "jobs"."id")`,
      ),
    )
    .orderBy(asc(jobs.runAt), asc(jobs.id))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(jobs)
    .set({ lockedUntil: afterMs(leaseMs), lockedBy: workerId, attempts: sql`${jobs.attempts} + 1` })
    .where(inArray(jobs.id, due))
    .returning({
      id: jobs.id,
      kind: jobs.kind,
      payload: jobs.payload,
      attempts: jobs.attempts,
      maxAttempts: jobs.maxAttempts,
    });
}

/** Whose the row still is: a worker whose lease ran out and was taken over leaves the row to the new one. */
const heldBy = (id: number, workerId: string) => and(eq(jobs.id, id), eq(jobs.lockedBy, workerId));

/** A done job is deleted: its payload (an email, a link) has no further use. */
export async function completeJob(db: Db, id: number, workerId: string): Promise<void> {
  await db.delete(jobs).where(heldBy(id, workerId));
}

/**
 * The kind's jobs waiting for a retry become due now: called when a try of that kind succeeds after
 * failures (the mail server is back), so that what an outage held up goes out at once instead of
 * after each job's own backoff, up to an hour.
 */
export async function hastenRetries(db: Db, kind: string): Promise<void> {
  await db
    .update(jobs)
    .set({ runAt: sql`now()` })
    .where(and(eq(jobs.state, 'pending'), eq(jobs.kind, kind), sql`${jobs.runAt} > now()`, sql`${jobs.attempts} > 0`));
}

/** Released for another try after `delayMs`, with what went wrong (a class and code). */
export async function retryJob(db: Db, id: number, workerId: string, error: string, delayMs: number): Promise<void> {
  await db
    .update(jobs)
    .set({ runAt: afterMs(delayMs), lastError: error, lockedUntil: null, lockedBy: null })
    .where(heldBy(id, workerId));
}

/**
 * Given up: the row stays for inspection (state `failed`) until the retention purge; a secret
 * payload is erased now, since nothing will send it any more.
 */
export async function failJob(db: Db, id: number, workerId: string, error: string): Promise<void> {
  await db
    .update(jobs)
    .set({
      state: 'failed',
      failedAt: sql`now()`,
      lastError: error,
      lockedUntil: null,
      lockedBy: null,
      payload: sql`case when ${jobs.secret} then '{}'::jsonb else ${jobs.payload} end`,
    })
    .where(heldBy(id, workerId));
}

/** Deletes the failed jobs older than `retentionMs`; returns how many. */
export async function purgeFailedJobs(db: Db, retentionMs: number): Promise<number> {
  const gone = await db
    .delete(jobs)
    .where(
      and(
        eq(jobs.state, 'failed'),
        lt(jobs.failedAt, sql`now() - make_interval(secs => ${retentionMs / 1000}::double precision)`),
      ),
    )
    .returning({ id: jobs.id });
  return gone.length;
}

export interface JobStats {
  kind: string;
  state: 'pending' | 'failed';
  count: number;
  /** Seconds since the oldest of them was created. */
  oldestAgeSeconds: number;
}

/** Counts by kind and state, and the oldest's age: the metrics' one query, at scrape time. */
export async function jobStats(db: Db): Promise<JobStats[]> {
  const rows = await db
    .select({
      kind: jobs.kind,
      state: jobs.state,
      count: sql<number>`count(*)::int`,
      oldestAgeSeconds: sql<number>`extract(epoch from now() - min(${jobs.createdAt}))::float8`,
    })
    .from(jobs)
    .groupBy(jobs.kind, jobs.state);
  return rows.map((r) => ({ ...r, state: r.state as JobStats['state'], oldestAgeSeconds: Number(r.oldestAgeSeconds) }));
}
