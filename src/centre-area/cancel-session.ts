import { and, eq, isNotNull, ne } from 'drizzle-orm';
import { patchSessionIn } from '../admin/repository/sessions.js';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/connect.js';
import { reservations } from '../db/schema.js';
import { catalogueWrite } from '../db/write.js';
import type { Actor } from '../history/actor.js';
import { queueMail } from '../mail/outbox.js';
import { type CancelledCourse, sessionCancelledMail } from '../reservations/mail.js';

/**
 * The centre cancels a session, saying why: in one transaction, the session is cancelled (which
 * cancels its reservations and frees their places: migration 0007's trigger), the change goes in
 * the history, and each person who had a place is emailed the reason through the outbox. Returns
 * how many people were told. Throws what the partner API's PATCH throws.
 */
export async function cancelSessionForCentre(
  db: Db,
  session: CancelledCourse & { id: string; centreId: string },
  reason: string,
  options: {
    clock: Clock;
    actor: Actor;
    mail: boolean;
    platformName: string;
    centre: { name: string; phone: string | null };
  },
): Promise<number> {
  const { id } = session;
  return catalogueWrite(db, async (tx) => {
    const people = await tx
      .select({ email: reservations.email, firstName: reservations.firstName, reference: reservations.reference })
      .from(reservations)
      .where(and(eq(reservations.sessionId, id), ne(reservations.status, 'cancelled'), isNotNull(reservations.email)))
      .for('update');
    await patchSessionIn(
      tx,
      id,
      { status: 'cancelled' },
      { centreId: session.centreId },
      undefined,
      () => [],
      options.clock,
      options.actor,
    );
    if (options.mail)
      for (const p of people)
        await queueMail(
          tx,
          sessionCancelledMail({
            to: p.email as string,
            firstName: p.firstName,
            reference: p.reference,
            course: session,
            reason,
            centre: options.centre,
            platformName: options.platformName,
          }),
          { secret: false },
        );
    return people.length;
  });
}
