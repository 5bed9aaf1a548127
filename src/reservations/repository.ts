import { and, desc, eq, getTableColumns, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../core/errors.js';
import type { Db } from '../db/connect.js';
import { centres, reservationLinks, reservations, stageSessions } from '../db/schema.js';
import { catalogueWrite, type Tx } from '../db/write.js';
import { WriteRefused } from '../db/write-refused.js';
import { emailKey, type Reason, type ReservationDetails } from './form.js';
import { newLinkToken, newReference, secretHash } from './secrets.js';

export type ReservationRow = typeof reservations.$inferSelect;
export type ReservationStatus = 'pending' | 'confirmed' | 'cancelled';
export const RESERVATION_STATUSES = ['pending', 'confirmed', 'cancelled'] as const;

export type BookingOutcome =
  /** A place was taken and the reservation stored; `token` is its private link's secret. */
  | { kind: 'booked'; reservation: ReservationRow; token: string }
  /** This browser already booked this session with this address: a fresh link to that reservation. */
  | { kind: 'again'; reservation: ReservationRow; token: string }
  /** Someone (another browser) already booked this session with this address. */
  | { kind: 'duplicate' }
  /** No place left. */
  | { kind: 'full' }
  /** Cancelled, begun, or no longer in the catalogue. */
  | { kind: 'closed' };

export interface BookingRequest {
  sessionId: string;
  /** Today in the centre's zone: a session whose first day is before it has begun. */
  today: string;
  details: ReservationDetails;
  /** The form cookie of the booking browser (its hash is stored). */
  browser: string;
}

/**
 * How long after booking the same browser may be led to its reservation again. Compared with
 * the database's clock, which stamped the reservation's createdAt.
 */
const AGAIN_WINDOW = sql`interval '30 minutes'`;

async function addLink(tx: Tx, reservationId: string): Promise<string> {
  const token = newLinkToken();
  await tx.insert(reservationLinks).values({ tokenHash: secretHash(token), reservationId });
  return token;
}

/**
 * Books one place, in one transaction: the place is taken by one conditional UPDATE (never below
 * 0, whatever runs at the same time on any instance) and the reservation stored with it, or
 * neither. Like every catalogue write it first takes the catalogue's version lock, so bookings of
 * one catalogue commit one after the other and the same-address check below cannot race.
 */
export async function bookPlace(db: Db, request: BookingRequest): Promise<BookingOutcome> {
  const key = emailKey(request.details.email);
  const browserHash = secretHash(request.browser);
  for (let attempt = 1; ; attempt++) {
    try {
      return await catalogueWrite(db, async (tx): Promise<BookingOutcome> => {
        const [found] = await tx
          .select({ row: reservations, recent: sql<boolean>`${reservations.createdAt} > now() - ${AGAIN_WINDOW}` })
          .from(reservations)
          .where(
            and(
              eq(reservations.sessionId, request.sessionId),
              eq(reservations.emailKey, key),
              sql`${reservations.status} <> 'cancelled'`,
            ),
          );
        if (found) {
          const existing = found.row;
          // The same browser, shortly after: a second tap or a refresh of the form. Later, the cookie alone
          // (which a shared computer keeps) must not open the reservation again.
          const recent = found.recent;
          if (existing.browserHash !== browserHash || !recent) return { kind: 'duplicate' };
          return { kind: 'again', reservation: existing, token: await addLink(tx, existing.id) };
        }
        const [session] = await tx
          .update(stageSessions)
          .set({ spotsAvailable: sql`${stageSessions.spotsAvailable} - 1`, updatedAt: sql`now()` })
          .where(
            and(
              eq(stageSessions.id, request.sessionId),
              eq(stageSessions.status, 'scheduled'),
              gte(stageSessions.day1, request.today),
              sql`${stageSessions.spotsAvailable} > 0`,
            ),
          )
          .returning({ centreId: stageSessions.centreId });
        if (!session) {
          const [current] = await tx
            .select({ status: stageSessions.status, day1: stageSessions.day1 })
            .from(stageSessions)
            .where(eq(stageSessions.id, request.sessionId));
          return current && current.status === 'scheduled' && current.day1 >= request.today
            ? { kind: 'full' }
            : { kind: 'closed' };
        }
        const d = request.details;
        const [reservation] = await tx
          .insert(reservations)
          .values({
            reference: newReference(),
            sessionId: request.sessionId,
            centreId: session.centreId,
            reason: d.reason,
            firstName: d.firstName,
            lastName: d.lastName,
            email: d.email,
            emailKey: key,
            phone: d.phone,
            browserHash,
            consentAt: sql`now()`,
          })
          .returning();
        const row = reservation as ReservationRow;
        return { kind: 'booked', reservation: row, token: await addLink(tx, row.id) };
      });
    } catch (err) {
      // Two references out of 2^40 collided: draw another.
      if (attempt < 3 && err instanceof WriteRefused && err.errors?.[0]?.name === 'reference') continue;
      throw err;
    }
  }
}

/** The reservation a private link leads to (purged reservations have no links left). */
export async function findByToken(db: Db, token: string): Promise<ReservationRow | undefined> {
  const [row] = await db
    .select({ r: reservations })
    .from(reservationLinks)
    .innerJoin(reservations, eq(reservations.id, reservationLinks.reservationId))
    .where(eq(reservationLinks.tokenHash, secretHash(token)));
  return row?.r;
}

export type Canceller = 'person' | 'centre' | 'operator';

/**
 * Cancels a reservation and gives its place back, in one transaction. The place goes back only
 * if the reservation was still holding it (not already cancelled), and never above capacity.
 */
async function cancelIn(tx: Tx, row: ReservationRow, by: Canceller): Promise<ReservationRow> {
  const [cancelled] = await tx
    .update(reservations)
    .set({ status: 'cancelled', cancelledAt: sql`now()`, cancelledBy: by, updatedAt: sql`now()` })
    .where(and(eq(reservations.id, row.id), sql`${reservations.status} <> 'cancelled'`))
    .returning();
  if (!cancelled) return row;
  await tx
    .update(stageSessions)
    .set({ spotsAvailable: sql`${stageSessions.spotsAvailable} + 1`, updatedAt: sql`now()` })
    .where(and(eq(stageSessions.id, row.sessionId), sql`${stageSessions.spotsAvailable} < ${stageSessions.capacity}`));
  return cancelled;
}

export type PersonCancel =
  | { kind: 'cancelled'; reservation: ReservationRow }
  | { kind: 'already'; reservation: ReservationRow }
  | { kind: 'begun'; reservation: ReservationRow }
  | { kind: 'unknown' };

/** The person cancels from the private link, up to the day before the course. */
export async function cancelByPerson(
  db: Db,
  token: string,
  today: (sessionId: string) => string,
): Promise<PersonCancel> {
  return catalogueWrite(db, async (tx) => {
    const [found] = await tx
      .select({ r: reservations, day1: stageSessions.day1 })
      .from(reservationLinks)
      .innerJoin(reservations, eq(reservations.id, reservationLinks.reservationId))
      .innerJoin(stageSessions, eq(stageSessions.id, reservations.sessionId))
      .where(eq(reservationLinks.tokenHash, secretHash(token)))
      .for('update', { of: reservations });
    if (!found) return { kind: 'unknown' };
    if (found.r.status === 'cancelled') return { kind: 'already', reservation: found.r };
    if (found.day1 <= today(found.r.sessionId)) return { kind: 'begun', reservation: found.r };
    return { kind: 'cancelled', reservation: await cancelIn(tx, found.r, 'person') };
  });
}

/** Which reservations a key may see: all (operator) or its centre's (partner). */
export interface ReadScope {
  centreId: string | null;
}

export interface ReservationFilter {
  sessionId?: string | undefined;
  status?: ReservationStatus | undefined;
  reference?: string | undefined;
  /** Reservations after this one in (createdAt desc, id desc) order: the previous page's cursor. */
  before?: { createdAt: Date; id: string } | undefined;
  limit: number;
}

// Pages are cut on (creation time, id). The database keeps microseconds and a cursor carries a
// JavaScript date (milliseconds): both sides compare at millisecond precision, or rows would be skipped.
const CREATED_MS = sql<Date>`date_trunc('milliseconds', ${reservations.createdAt})`;

/** Newest first. */
export async function listReservations(db: Db, scope: ReadScope, filter: ReservationFilter) {
  const conditions: (SQL | undefined)[] = [
    scope.centreId === null ? undefined : eq(reservations.centreId, scope.centreId),
    filter.sessionId ? eq(reservations.sessionId, filter.sessionId) : undefined,
    filter.status ? eq(reservations.status, filter.status) : undefined,
    filter.reference ? eq(reservations.reference, filter.reference) : undefined,
    filter.before
      ? sql`(${CREATED_MS}, ${reservations.id}) < (${filter.before.createdAt.toISOString()}::timestamptz, ${filter.before.id}::uuid)`
      : undefined,
  ];
  return db
    .select({
      ...getTableColumns(reservations),
      /** This row's position for the next page's cursor, at the precision the cursor compares. */
      cursorAt: sql<string>`to_char(${CREATED_MS} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    })
    .from(reservations)
    .where(and(...conditions))
    .orderBy(desc(CREATED_MS), desc(reservations.id))
    .limit(filter.limit);
}

export async function getReservation(db: Db, id: string): Promise<ReservationRow | undefined> {
  const [row] = await db.select().from(reservations).where(eq(reservations.id, id));
  return row;
}

/** A status change the reservation's state refuses (unknown to this key, or already cancelled). */
export class StatusRefused extends DomainError {}

/**
 * The centre (or the operator) confirms or cancels: pending → confirmed, pending or confirmed →
 * cancelled (the place goes back). A cancelled reservation stays cancelled: a new booking is a new
 * reservation. Asking for the status it already has changes nothing.
 */
export async function setReservationStatus(
  db: Db,
  id: string,
  status: 'confirmed' | 'cancelled',
  scope: ReadScope,
): Promise<ReservationRow> {
  return catalogueWrite(db, async (tx) => {
    const [row] = await tx.select().from(reservations).where(eq(reservations.id, id)).for('update');
    if (!row || (scope.centreId !== null && row.centreId !== scope.centreId))
      throw new StatusRefused(404, 'not_found', `No reservation of yours has the id ${id}.`);
    if (row.status === status) return row;
    if (row.status === 'cancelled')
      throw new StatusRefused(
        409,
        'reservation_cancelled',
        'This reservation is cancelled and its place was given back; it cannot be confirmed again. The person can book again.',
      );
    if (status === 'cancelled') return cancelIn(tx, row, scope.centreId === null ? 'operator' : 'centre');
    const [confirmed] = await tx
      .update(reservations)
      .set({ status: 'confirmed', confirmedAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(reservations.id, id))
      .returning();
    return confirmed as ReservationRow;
  });
}

/**
 * Erases the personal data of reservations whose session ended before `before` (its second day
 * is earlier): names, email, phone and the browser hash are set to null and the private links
 * deleted. Status, reason and dates stay, so counts remain. Returns how many were erased.
 */
export async function purgePersonalData(db: Db, before: string): Promise<{ reservations: number; links: number }> {
  return db.transaction(async (tx) => {
    const ended = tx.select({ id: stageSessions.id }).from(stageSessions).where(lt(stageSessions.day2, before));
    const erased = await tx
      .update(reservations)
      .set({
        firstName: null,
        lastName: null,
        email: null,
        emailKey: null,
        phone: null,
        browserHash: null,
        // The reference is in the person's and the centre's mailboxes: it must lead to nobody now.
        // Times are kept to the day, enough for counts and not a fingerprint.
        reference: sql`'X-' || ${reservations.id}::text`,
        consentAt: sql`date_trunc('day', ${reservations.consentAt})`,
        createdAt: sql`date_trunc('day', ${reservations.createdAt})`,
        confirmedAt: sql`date_trunc('day', ${reservations.confirmedAt})`,
        cancelledAt: sql`date_trunc('day', ${reservations.cancelledAt})`,
        purgedAt: sql`date_trunc('day', now())`,
        updatedAt: sql`date_trunc('day', now())`,
      })
      .where(and(inArray(reservations.sessionId, ended), sql`${reservations.purgedAt} is null`))
      .returning({ id: reservations.id });
    const ids = erased.map((r) => r.id);
    const links = ids.length
      ? await tx.delete(reservationLinks).where(inArray(reservationLinks.reservationId, ids)).returning({
          h: reservationLinks.tokenHash,
        })
      : [];
    return { reservations: ids.length, links: links.length };
  });
}

/** The centre's contact details and notice address, for the confirmation page and emails. */
export async function centreContact(db: Db, centreId: string) {
  const [row] = await db
    .select({ name: centres.name, email: centres.email, phone: centres.phone })
    .from(centres)
    .where(eq(centres.id, centreId));
  return row;
}

export type { Reason };
