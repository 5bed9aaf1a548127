import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { jobs } from '../db/schema.js';

/** A failed job as an operator sees it: never its payload (an email, a link). */
export interface FailedJob {
  id: number;
  kind: string;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  failedAt: Date | null;
  /** False for a secret job, whose payload was erased when it failed: nothing left to run. */
  retryable: boolean;
}

/** The most recently failed jobs, newest first. */
export async function failedJobs(db: Db, limit = 100): Promise<FailedJob[]> {
  return db
    .select({
      id: jobs.id,
      kind: jobs.kind,
      attempts: jobs.attempts,
      lastError: jobs.lastError,
      createdAt: jobs.createdAt,
      failedAt: jobs.failedAt,
      retryable: sql<boolean>`not ${jobs.secret}`,
    })
    .from(jobs)
    .where(eq(jobs.state, 'failed'))
    .orderBy(desc(jobs.failedAt), desc(jobs.id))
    .limit(limit);
}

/**
 * Puts failed jobs back in the queue with a fresh count of tries, due now: those of `ids`, or every
 * one. Secret jobs stay failed (their payload is gone). Returns how many were put back.
 */
export async function retryFailedJobs(db: Db, ids?: number[]): Promise<number> {
  const back = await db
    .update(jobs)
    .set({ state: 'pending', attempts: 0, runAt: sql`now()`, failedAt: null })
    .where(and(eq(jobs.state, 'failed'), eq(jobs.secret, false), ids ? inArray(jobs.id, ids) : undefined))
    .returning({ id: jobs.id });
  return back.length;
}
