import { and, count, eq } from 'drizzle-orm';
import type { AgentPerson } from '../agent-claims/agent-person.js';
import type { Db } from '../db/connect.js';
import { placeHolds, users } from '../db/schema.js';
import { catalogueWrite } from '../db/write.js';
import { enqueue } from '../jobs/enqueue.js';
import { takePlace, whyNoPlace } from '../reservations/repository/places.js';
import { expireDueHolds } from './end-hold.js';
import { type Hold, holdView } from './hold-view.js';
import { HOLD_EXPIRY_JOB, MAX_ACTIVE_HOLDS, newHoldId } from './policy.js';

export interface HoldRequest {
  sessionId: string;
  /** The agent's key: the same key under the same claim gives the same hold back. */
  idempotencyKey?: string | undefined;
}

export interface HoldDeps {
  now: Date;
  ttlSeconds: number;
  baseUrl: string;
}

/** Why no hold was made: the doors give `status` (REST) or an error result (MCP) with `detail`. */
export interface HoldRefusal {
  status: 404 | 409;
  code: string;
  detail: string;
  field?: string;
}

export type HoldResult = { ok: true; hold: Hold; replayed: boolean } | ({ ok: false } & HoldRefusal);

const refuse = (status: 404 | 409, code: string, detail: string, field?: string): HoldResult => ({
  ok: false,
  status,
  code,
  detail,
  ...(field ? { field } : {}),
});

/**
 * Holds one place of a session for the person who claimed this client, in one catalogue write:
 * the place is taken from those on sale by the places model's conditional UPDATE (never
 * oversold, whatever runs on any instance), the hold stored, and the job that gives it back at
 * its expiry queued, or none of it. The catalogue's version lock orders holds, so the limits
 * counted here cannot be raced: one active hold per person and session, MAX_ACTIVE_HOLDS per person.
 */
export async function takeHold(
  db: Db,
  agent: { person: AgentPerson; clientId: string },
  request: HoldRequest,
  deps: HoldDeps,
): Promise<HoldResult> {
  const { person } = agent;
  const { now } = deps;
  return catalogueWrite(db, async (tx): Promise<HoldResult> => {
    // One hold at a time per person: the checks below (the same key, one per session, three at once)
    // read the person's holds, and a second request at once must find the first one's.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, person.userId)).for('update');
    if (request.idempotencyKey !== undefined) {
      const [same] = await tx
        .select()
        .from(placeHolds)
        .where(and(eq(placeHolds.claimId, person.claimId), eq(placeHolds.idempotencyKey, request.idempotencyKey)));
      if (same && same.sessionId !== request.sessionId)
        return refuse(
          409,
          'idempotency_key_reused',
          `This idempotency key was already used for a hold of another session (${same.sessionId}): use a new key for a new hold.`,
          'idempotencyKey',
        );
      if (same) return { ok: true, hold: holdView(same, deps.baseUrl, now), replayed: true };
    }
    // The person's holds past their time no longer count: their places go back first.
    await expireDueHolds(tx, now, eq(placeHolds.userId, person.userId));
    const active = and(eq(placeHolds.userId, person.userId), eq(placeHolds.state, 'active'));
    const [here] = await tx
      .select({ id: placeHolds.id, claimId: placeHolds.claimId })
      .from(placeHolds)
      .where(and(active, eq(placeHolds.sessionId, request.sessionId)));
    if (here)
      return refuse(
        409,
        'already_held',
        here.claimId === person.claimId
          ? `A place of this session is already held for the person (hold ${here.id}): one hold per person and session.`
          : 'A place of this session is already held for the person, by another of their agents: one hold per person and session.',
        'sessionId',
      );
    const [held] = await tx.select({ n: count() }).from(placeHolds).where(active);
    if ((held?.n ?? 0) >= MAX_ACTIVE_HOLDS)
      return refuse(
        409,
        'too_many_holds',
        `The person already has ${MAX_ACTIVE_HOLDS} places held, the most at once: release one (release_hold, DELETE /api/holds/{id}) or let the person book.`,
      );
    const taken = await takePlace(tx, request.sessionId, now);
    if (!taken)
      return (await whyNoPlace(tx, request.sessionId, now)) === 'full'
        ? refuse(
            409,
            'no_places',
            'This session has no place left to hold. A claimed client with "alerts" may watch it for the person (watches).',
            'sessionId',
          )
        : refuse(
            409,
            'session_closed',
            'This session can no longer be booked (cancelled, begun, or its centre suspended): use search_stages.',
            'sessionId',
          );
    const expiresAt = new Date(now.getTime() + deps.ttlSeconds * 1000);
    const [row] = await tx
      .insert(placeHolds)
      .values({
        id: newHoldId(),
        sessionId: request.sessionId,
        userId: person.userId,
        claimId: person.claimId,
        clientId: agent.clientId,
        idempotencyKey: request.idempotencyKey ?? null,
        createdAt: now,
        expiresAt,
      })
      .returning();
    if (!row) throw new Error('the hold was not stored');
    // Due at expiresAt by the service's clock, on whichever instance's worker comes first.
    await enqueue(tx, HOLD_EXPIRY_JOB, { holdId: row.id }, { notBefore: expiresAt });
    return { ok: true, hold: holdView(row, deps.baseUrl, now), replayed: false };
  });
}
