import { and, eq, gt } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { placeHolds, stageSessions } from '../../db/schema.js';
import type { Tx } from '../../db/write.js';

/*
 * A place an agent holds for a person (src/agent-holds/) is a place of the places model: taken
 * from those on sale into those held here, like a booking's. Booking on the hold's page turns the
 * hold into the reservation: the reservation inherits the held place, none is taken a second time.
 */

/** A hold id: `hld_` + 128 random bits, base64url. Unguessable: in completeUrl it is the person's capability. */
export const HOLD_ID = /^hld_[A-Za-z0-9_-]{22}$/;

/** The hold's page for the person (its completeUrl): the session's booking form, with the held place applied. */
export function completePath(sessionId: string, holdId: string): string {
  return `/stages/${sessionId}/reservation?hold=${holdId}`;
}

/** A hold as the booking page shows it: whether it still holds the place, and until when. */
export interface HeldPlace {
  state: 'active' | 'completed' | 'released' | 'expired';
  expiresAt: Date;
}

/**
 * The hold `holdId` of session `sessionId` (undefined if none), with the state it has at `now`:
 * an active hold past its time is expired, whether or not its place was given back yet.
 */
export async function heldPlaceOf(
  db: Db,
  holdId: string,
  sessionId: string,
  now: Date,
): Promise<HeldPlace | undefined> {
  const [row] = await db
    .select({ state: placeHolds.state, expiresAt: placeHolds.expiresAt })
    .from(placeHolds)
    .where(and(eq(placeHolds.id, holdId), eq(placeHolds.sessionId, sessionId)));
  if (!row) return undefined;
  const state = row.state === 'active' && row.expiresAt <= now ? 'expired' : (row.state as HeldPlace['state']);
  return { state, expiresAt: row.expiresAt };
}

/**
 * Turns an active hold of `sessionId`, not expired at `now`, into a booking's place: one
 * conditional UPDATE (state active → completed), so that the hold's expiry or release, which
 * update the same row on the same condition, can no longer give this place back. The session's
 * centre, or undefined when the hold holds nothing (then the booking takes a place of its own).
 */
export async function takeHeldPlace(
  tx: Tx,
  holdId: string,
  sessionId: string,
  now: Date,
): Promise<{ centreId: string } | undefined> {
  const [taken] = await tx
    .update(placeHolds)
    .set({ state: 'completed', endedAt: now })
    .where(
      and(
        eq(placeHolds.id, holdId),
        eq(placeHolds.sessionId, sessionId),
        eq(placeHolds.state, 'active'),
        gt(placeHolds.expiresAt, now),
      ),
    )
    .returning({ id: placeHolds.id });
  if (!taken) return undefined;
  const [session] = await tx
    .select({ centreId: stageSessions.centreId })
    .from(stageSessions)
    .where(eq(stageSessions.id, sessionId));
  return session;
}

/** Names the reservation that inherited a completed hold's place (in the booking's transaction). */
export async function holdBecame(tx: Tx, holdId: string, reservationId: string): Promise<void> {
  await tx.update(placeHolds).set({ reservationId }).where(eq(placeHolds.id, holdId));
}
