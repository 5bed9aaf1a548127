import { and, eq, lt, lte, ne, type SQL } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { placeHolds } from '../db/schema.js';
import { catalogueWrite, type Tx } from '../db/write.js';
import { givePlaceBack } from '../reservations/repository/places.js';
import type { Hold } from './hold-view.js';
import { type HoldRow, holdView } from './hold-view.js';

/**
 * Ends the active holds past their time (all of them, or those `which` selects) and gives their
 * places back, in the caller's transaction. The state is checked in the same UPDATE: a hold the
 * person completed meanwhile is no longer active, and the place its reservation holds stays held.
 */
export async function expireDueHolds(tx: Tx, now: Date, which?: SQL): Promise<number> {
  const ended = await tx
    .update(placeHolds)
    .set({ state: 'expired', endedAt: now })
    .where(and(eq(placeHolds.state, 'active'), lte(placeHolds.expiresAt, now), which))
    .returning({ sessionId: placeHolds.sessionId });
  for (const hold of ended) await givePlaceBack(tx, hold.sessionId);
  return ended.length;
}

/** An ended hold is kept this long (its agent may still read its state), then deleted. */
export const ENDED_HOLD_KEPT_MS = 30 * 86_400_000;

/**
 * The expiry job's work: every hold past its time gives its place back (how many); holds ended
 * more than ENDED_HOLD_KEPT_MS ago are forgotten.
 */
export async function expireHolds(db: Db, now: Date): Promise<number> {
  const ended = await catalogueWrite(db, (tx) => expireDueHolds(tx, now));
  await db
    .delete(placeHolds)
    .where(and(ne(placeHolds.state, 'active'), lt(placeHolds.endedAt, new Date(now.getTime() - ENDED_HOLD_KEPT_MS))));
  return ended;
}

export type ReleaseResult =
  | { kind: 'released'; hold: Hold }
  /** Already ended (released, expired): nothing more to give back. */
  | { kind: 'ended'; hold: Hold }
  /** The person booked it: the place is their reservation's now. */
  | { kind: 'completed'; hold: Hold }
  /** No hold of this claim has this id. */
  | { kind: 'unknown' };

/**
 * The agent gives a hold of its claim back: the place goes on sale again at once. One conditional
 * UPDATE (active → released) decides, so a release racing the person's booking or the expiry
 * gives the place back at most once, and never the place of a reservation.
 */
export async function releaseHold(
  db: Db,
  claimId: string,
  holdId: string,
  deps: { now: Date; baseUrl: string },
): Promise<ReleaseResult> {
  return catalogueWrite(db, async (tx) => {
    const ofClaim = and(eq(placeHolds.id, holdId), eq(placeHolds.claimId, claimId));
    const [released] = await tx
      .update(placeHolds)
      .set({ state: 'released', endedAt: deps.now })
      .where(and(ofClaim, eq(placeHolds.state, 'active')))
      .returning();
    if (released) {
      await givePlaceBack(tx, released.sessionId);
      return { kind: 'released', hold: holdView(released, deps.baseUrl, deps.now) };
    }
    const [row] = await tx.select().from(placeHolds).where(ofClaim);
    if (!row) return { kind: 'unknown' };
    const hold = holdView(row as HoldRow, deps.baseUrl, deps.now);
    return { kind: row.state === 'completed' ? 'completed' : 'ended', hold };
  });
}
