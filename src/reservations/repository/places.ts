import { and, eq, sql } from 'drizzle-orm';
import { stageSessions } from '../../db/schema.js';
import type { Tx } from '../../db/write.js';
import { centreOpen, sessionStart } from './session-start.js';

/*
 * The places model's two moves for a reservation (docs/admin-api.md "Places"): a booking takes a
 * place from those on sale to those held here, a cancellation gives it back. Booking, cancelling
 * and a date change all move places through these, so the arithmetic is written once.
 */

/**
 * Takes one place of `sessionId` by one conditional UPDATE: never below 0, whatever runs at the
 * same time on any instance; only a scheduled session not begun at `now` whose centre is open.
 * The session's centre, or undefined when no place was taken (see `whyNoPlace`).
 */
export async function takePlace(tx: Tx, sessionId: string, now: Date): Promise<{ centreId: string } | undefined> {
  const [session] = await tx
    .update(stageSessions)
    .set({
      spotsAvailable: sql`${stageSessions.spotsAvailable} - 1`,
      heldHere: sql`${stageSessions.heldHere} + 1`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(stageSessions.id, sessionId),
        eq(stageSessions.status, 'scheduled'),
        sql`${sessionStart} > ${now.toISOString()}::timestamptz`,
        sql`${stageSessions.spotsAvailable} > 0`,
        centreOpen(now),
      ),
    )
    .returning({ centreId: stageSessions.centreId });
  return session;
}

/** After `takePlace` took none: 'full' when the session is open but has no place left, else 'closed'. */
export async function whyNoPlace(tx: Tx, sessionId: string, now: Date): Promise<'full' | 'closed'> {
  const [current] = await tx
    .select({
      status: stageSessions.status,
      begun: sql<boolean>`${sessionStart} <= ${now.toISOString()}::timestamptz or not ${centreOpen(now)}`,
    })
    .from(stageSessions)
    .where(eq(stageSessions.id, sessionId));
  return current && current.status === 'scheduled' && !current.begun ? 'full' : 'closed';
}

/**
 * Gives a reservation's place back to `sessionId`: from held here to on sale. A cancelled session
 * already let its reservations go (held_here 0): nothing left to give back.
 */
export async function givePlaceBack(tx: Tx, sessionId: string): Promise<void> {
  await tx
    .update(stageSessions)
    .set({
      spotsAvailable: sql`${stageSessions.spotsAvailable} + 1`,
      heldHere: sql`${stageSessions.heldHere} - 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(stageSessions.id, sessionId), sql`${stageSessions.heldHere} > 0`));
}
