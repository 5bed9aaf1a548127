import { and, eq, ne, sql } from 'drizzle-orm';
import { AlreadySubmitted, type FormSubmission, spendSubmission } from '../../accounts/form-submissions.js';
import type { Db } from '../../db/connect.js';
import { reservations, stageSessions } from '../../db/schema.js';
import { catalogueWrite, type Tx } from '../../db/write.js';
import { WriteRefused } from '../../db/write-refused.js';
import { emailKey } from '../form.js';
import { newReference } from '../secrets.js';
import { cancelIn } from './cancel.js';
import { addLink } from './links.js';
import { givePlaceBack, takePlace, whyNoPlace } from './places.js';
import type { ReservationRow } from './rows.js';
import { sessionStart } from './session-start.js';

/** A date change done: the reservation now holding the new place, and the one it came from. */
export interface DateChanged {
  /** The reservation on the new session: the same row moved (same centre) or a new one (another centre). */
  reservation: ReservationRow;
  /** A new private link's secret for it: in clear only in this transaction and the person's mail. */
  token: string;
  /** The reservation as it was before the change (its session is the one left). */
  previous: ReservationRow;
  /** True when the change went to another centre: the previous row is cancelled, a new one made. */
  otherCentre: boolean;
}

export type DateChangeOutcome =
  | ({ kind: 'changed' } & DateChanged)
  /** No reservation of this id made with this email. */
  | { kind: 'unknown' }
  /** Cancelled already (or moved to another centre by this very form, sent before). */
  | { kind: 'cancelled' }
  /** Its course starts within the cut-off: the centre decides now. */
  | { kind: 'too-late' }
  /** Already on that session (this form sent before, or the current session chosen). */
  | { kind: 'same' }
  /** The person already holds another reservation on that session. */
  | { kind: 'duplicate' }
  /** The chosen session has no place left now. */
  | { kind: 'full' }
  /** The chosen session is cancelled, begun, or its centre closed. */
  | { kind: 'closed' }
  /** This form was sent already (its one-time id spent): nothing done again. */
  | { kind: 'repeated' };

export interface DateChangeRequest {
  reservationId: string;
  /** The signed-in person's email: only their reservations can be changed. */
  email: string;
  targetSessionId: string;
  /** The service's clock (app.clock). */
  now: Date;
  /** The change is refused from this many days before the booked course's start. */
  cutoffDays: number;
  /** The form's one-time id, spent with the change: a repeated POST changes nothing. */
  submission: FormSubmission;
  /** Runs in the change's transaction once done (the emails go to the outbox there); throwing undoes it. */
  onChanged?: (tx: Tx, changed: DateChanged) => Promise<void>;
}

/** Thrown inside the transaction to undo everything (the submission id included) and answer `outcome`. */
class Undone extends Error {
  constructor(readonly outcome: DateChangeOutcome) {
    super(outcome.kind);
  }
}

/**
 * A person moves a reservation to another session, in ONE catalogue write: the new place is taken
 * by the booking's conditional UPDATE (never below 0, any instance) and the old one given back by
 * the cancellation's arithmetic, or neither. Allowed until `cutoffDays` before the booked course's
 * start (its day 1 at its start time in its centre's zone, as the database reads the row).
 *
 * Same centre: the row moves in place (same reference, private links and payment mark), back to
 * pending as a new booking. Another centre: a cancellation at the first (its row cancelled by the
 * person) and a booking at the second (a new row, a new reference). Either way the rows touched
 * carry `changed_at` and the pair of sessions, from which the webhooks send `reservation.changed`.
 */
export async function changeDate(db: Db, request: DateChangeRequest): Promise<DateChangeOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await catalogueWrite(db, (tx) => changeIn(tx, request));
    } catch (err) {
      if (err instanceof Undone) return err.outcome;
      if (err instanceof AlreadySubmitted) return { kind: 'repeated' };
      // Two references out of 2^40 collided: draw another.
      if (attempt < 3 && err instanceof WriteRefused && err.errors?.[0]?.name === 'reference') continue;
      throw err;
    }
  }
}

async function changeIn(tx: Tx, request: DateChangeRequest): Promise<DateChangeOutcome> {
  const key = emailKey(request.email);
  const now = request.now.toISOString();
  // The submission first: a second sending of the same form waits here for the first to end.
  await spendSubmission(tx, request.submission);
  const [found] = await tx
    .select({
      r: reservations,
      open: sql<boolean>`${sessionStart} - make_interval(hours => ${request.cutoffDays * 24}) > ${now}::timestamptz`,
    })
    .from(reservations)
    .innerJoin(stageSessions, eq(stageSessions.id, reservations.sessionId))
    .where(and(eq(reservations.id, request.reservationId), eq(reservations.emailKey, key)))
    .for('update', { of: reservations });
  if (!found) throw new Undone({ kind: 'unknown' });
  const previous = found.r;
  // A repeated form finds its work done: said as such, the submission spent again is undone.
  if (previous.status === 'cancelled') throw new Undone({ kind: 'cancelled' });
  if (previous.sessionId === request.targetSessionId) throw new Undone({ kind: 'same' });
  if (!found.open) throw new Undone({ kind: 'too-late' });
  const [held] = await tx
    .select({ id: reservations.id })
    .from(reservations)
    .where(
      and(
        eq(reservations.sessionId, request.targetSessionId),
        eq(reservations.emailKey, key),
        ne(reservations.status, 'cancelled'),
      ),
    );
  if (held) throw new Undone({ kind: 'duplicate' });

  const taken = await takePlace(tx, request.targetSessionId, request.now);
  if (!taken) throw new Undone({ kind: await whyNoPlace(tx, request.targetSessionId, request.now) });
  const change = {
    changedAt: sql`now()`,
    changedFromSessionId: previous.sessionId,
    changedToSessionId: request.targetSessionId,
    updatedAt: sql`now()`,
  };
  let reservation: ReservationRow;
  const otherCentre = taken.centreId !== previous.centreId;
  if (!otherCentre) {
    // Same centre: the row moves, pending again as a new booking is until the centre confirms.
    const [moved] = await tx
      .update(reservations)
      .set({ sessionId: request.targetSessionId, status: 'pending', confirmedAt: null, ...change })
      .where(eq(reservations.id, previous.id))
      .returning();
    reservation = moved as ReservationRow;
    await givePlaceBack(tx, previous.sessionId);
  } else {
    await cancelIn(tx, previous, 'person');
    await tx.update(reservations).set(change).where(eq(reservations.id, previous.id));
    const [created] = await tx
      .insert(reservations)
      .values({
        reference: newReference(),
        sessionId: request.targetSessionId,
        centreId: taken.centreId,
        reason: previous.reason,
        firstName: previous.firstName,
        lastName: previous.lastName,
        email: previous.email,
        emailKey: previous.emailKey,
        phone: previous.phone,
        consentAt: sql`now()`,
        ...change,
      })
      .returning();
    reservation = created as ReservationRow;
  }
  const changed: DateChanged = { reservation, token: await addLink(tx, reservation.id), previous, otherCentre };
  await request.onChanged?.(tx, changed);
  return { kind: 'changed', ...changed };
}
