import { and, eq, isNotNull, ne } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { reservations, sessionFollowUp } from '../db/schema.js';
import type { Actor } from '../history/actor.js';
import { recordChanges } from '../history/record.js';
import { queueMail } from '../mail/outbox.js';
import type { Mail } from '../mail/transport.js';
import { whatToBring } from '../reservations/bring.js';
import { displayPhone } from '../reservations/phone.js';
import { frenchDate, frenchTime, zoneNote } from '../web/format.js';
import type { SessionFile } from './attendance-repository.js';

/** The joining instructions for one person booked: where, when, what to bring, and that every hour counts. */
export function convocationMail(f: {
  to: string;
  firstName: string | null;
  reference: string;
  reason: string;
  session: SessionFile;
  platformName: string;
}): Mail {
  const s = f.session;
  const c = s.centre;
  const zone = zoneNote(c.timeZone);
  return {
    to: f.to,
    subject: `Convocation : stage des ${frenchDate(s.day1)} et ${frenchDate(s.day2)} à ${c.city} (réservation ${f.reference})`,
    text: [
      `Bonjour${f.firstName ? ` ${f.firstName}` : ''},`,
      '',
      'Voici votre convocation au stage de sensibilisation à la sécurité routière (récupération de points).',
      '',
      `Dates : ${frenchDate(s.day1)} et ${frenchDate(s.day2)}`,
      `Horaires : les deux jours, de ${frenchTime(s.startTime)} à ${frenchTime(s.endTime)}${zone ? ` (${zone})` : ''}, avec une pause pour déjeuner`,
      `Lieu : ${c.name}, ${c.address}, ${c.postalCode} ${c.city}`,
      `Numéro du stage : ${s.courseNumber}`,
      `Votre réservation : ${f.reference}`,
      '',
      'À apporter les deux jours :',
      ...whatToBring(f.reason).map((line) => `- ${line}`),
      '',
      'La présence est obligatoire pendant les deux journées entières : un retard ou une absence, même courte, empêche la délivrance de l’attestation de stage (article R223-5 du Code de la route).',
      '',
      `En cas d’empêchement, prévenez le centre${c.phone ? ` au ${displayPhone(c.phone)}` : ''}.`,
      '',
      f.platformName,
    ].join('\n'),
  };
}

export type ConvocationResult =
  | { kind: 'sent'; count: number }
  | { kind: 'already'; sentAt: Date }
  | { kind: 'nobody' };

/**
 * Emails the joining instructions to every person booked on the session (not cancelled), through
 * the outbox, in one transaction that records when (session_follow_up) and who (the history). The
 * session's row of session_follow_up is locked first: a repeated or concurrent POST finds it sent
 * and sends nothing, unless `resend` says the centre means it.
 */
export async function sendConvocations(
  db: Db,
  session: SessionFile,
  options: { resend: boolean; actor: Actor; at: Date; platformName: string },
): Promise<ConvocationResult> {
  return db.transaction(async (tx) => {
    await tx.insert(sessionFollowUp).values({ sessionId: session.id }).onConflictDoNothing();
    const [state] = await tx
      .select({ sentAt: sessionFollowUp.convocationSentAt })
      .from(sessionFollowUp)
      .where(eq(sessionFollowUp.sessionId, session.id))
      .for('update');
    const before = state?.sentAt ?? null;
    if (before && !options.resend) return { kind: 'already', sentAt: before };
    const people = await tx
      .select({
        email: reservations.email,
        firstName: reservations.firstName,
        reference: reservations.reference,
        reason: reservations.reason,
      })
      .from(reservations)
      .where(
        and(
          eq(reservations.sessionId, session.id),
          ne(reservations.status, 'cancelled'),
          isNotNull(reservations.email),
        ),
      );
    if (people.length === 0) return { kind: 'nobody' };
    for (const p of people)
      await queueMail(
        tx,
        convocationMail({
          to: p.email as string,
          firstName: p.firstName,
          reference: p.reference,
          reason: p.reason,
          session,
          platformName: options.platformName,
        }),
        { secret: false },
      );
    await tx
      .update(sessionFollowUp)
      .set({ convocationSentAt: options.at })
      .where(eq(sessionFollowUp.sessionId, session.id));
    await recordChanges(tx, options.actor, [
      {
        centreId: session.centreId,
        entity: 'session',
        entityId: session.id,
        field: 'convocationSentAt',
        oldValue: before?.toISOString() ?? null,
        newValue: options.at.toISOString(),
      },
    ]);
    return { kind: 'sent', count: people.length };
  });
}
