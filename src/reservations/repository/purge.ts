import { and, exists, inArray, isNull, lt, notExists, sql } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { attendance, reservationLinks, reservations, sessionFollowUp, stageSessions } from '../../db/schema.js';

/**
 * What a purged reservation becomes: nothing that names or reaches the person. The reference is in
 * the person's and the centre's mailboxes: it must lead to nobody now. Times are kept to the day,
 * enough for counts and not a fingerprint. The person's own erasure ("Mes données") sets the same.
 */
export const PURGED = {
  firstName: null,
  lastName: null,
  email: null,
  emailKey: null,
  phone: null,
  browserHash: null,
  reference: sql`'X-' || ${reservations.id}::text`,
  consentAt: sql`date_trunc('day', ${reservations.consentAt})`,
  createdAt: sql`date_trunc('day', ${reservations.createdAt})`,
  confirmedAt: sql`date_trunc('day', ${reservations.confirmedAt})`,
  cancelledAt: sql`date_trunc('day', ${reservations.cancelledAt})`,
  changedAt: sql`date_trunc('day', ${reservations.changedAt})`,
  purgedAt: sql`date_trunc('day', now())`,
  updatedAt: sql`date_trunc('day', now())`,
};

/**
 * Erases the personal data of reservations whose session ended before `before` (its second day
 * is earlier): names, email, phone and the browser hash are set to null and the private links
 * deleted. Status, reason, dates and presence marks stay, so counts remain. Returns how many were
 * erased, and how many were kept for their course's attendance.
 *
 * A course whose attendance was marked (the centres' area) keeps its people's data until the centre
 * has exported the list of those who attended (session_follow_up.attendance_exported_at): the
 * centre needs those names to send the attestations to the prefecture (Code de la route R223-8),
 * and they must not vanish under a purge run before it did (docs/data-and-privacy.md).
 */
export async function purgePersonalData(
  db: Db,
  before: string,
): Promise<{ reservations: number; links: number; keptForAttendance: number }> {
  return db.transaction(async (tx) => {
    const awaitingExport = and(
      // Some presence was marked for one of the session's reservations…
      exists(
        tx
          .select({ one: sql`1` })
          .from(attendance)
          .innerJoin(reservations, sql`${reservations.id} = ${attendance.reservationId}`)
          .where(sql`${reservations.sessionId} = ${stageSessions.id}`),
      ),
      // …and the list of those who attended was never exported.
      notExists(
        tx
          .select({ one: sql`1` })
          .from(sessionFollowUp)
          .where(
            and(
              sql`${sessionFollowUp.sessionId} = ${stageSessions.id}`,
              sql`${sessionFollowUp.attendanceExportedAt} is not null`,
            ),
          ),
      ),
    );
    const ended = tx
      .select({ id: stageSessions.id })
      .from(stageSessions)
      .where(and(lt(stageSessions.day2, before), sql`not (${awaitingExport})`));
    const held = tx
      .select({ id: stageSessions.id })
      .from(stageSessions)
      .where(and(lt(stageSessions.day2, before), awaitingExport));
    const [kept] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(reservations)
      .where(and(inArray(reservations.sessionId, held), isNull(reservations.purgedAt)));
    const erased = await tx
      .update(reservations)
      .set(PURGED)
      .where(and(inArray(reservations.sessionId, ended), sql`${reservations.purgedAt} is null`))
      .returning({ id: reservations.id });
    const ids = erased.map((r) => r.id);
    const links = ids.length
      ? await tx.delete(reservationLinks).where(inArray(reservationLinks.reservationId, ids)).returning({
          h: reservationLinks.tokenHash,
        })
      : [];
    return { reservations: ids.length, links: links.length, keptForAttendance: kept?.n ?? 0 };
  });
}
