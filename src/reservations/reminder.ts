/* The reminder email two days before a course: queued with the booking, sent once by a jobs worker. */
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SessionEntry } from '../catalogue/read-model.js';
import type { Db } from '../db/connect.js';
import { centres, jobs, reservations, stageSessions } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { enqueue } from '../jobs/enqueue.js';
import { queueMail } from '../mail/outbox.js';
import type { Mail } from '../mail/transport.js';
import { frenchDate, frenchTime } from '../web/format.js';
import { displayPhone } from './phone.js';
import { sessionStart } from './repository/session-start.js';

/** The jobs table's kind of a reminder. */
export const REMINDER_JOB = 'reservation-reminder';

/** How long before the course's start (day 1 at its start time, in its centre's zone) the reminder goes. */
export const REMINDER_BEFORE_MS = 48 * 3_600_000;

const reminderPayload = z.object({ reservationId: z.string(), sessionId: z.string(), startsAt: z.string() });

/**
 * In the booking's transaction: the reminder's job, due two days before the course starts by the
 * service's clock (jobs' `notBefore`). A booking made less than two days before gets none: its
 * confirmation, just sent, says it all. The payload holds ids and the start only, no personal data.
 */
export async function queueReminder(
  tx: Tx,
  booked: { reservationId: string; entry: SessionEntry; now: Date },
): Promise<void> {
  const { entry } = booked;
  if (!Number.isFinite(entry.startsAt)) return;
  const due = entry.startsAt - REMINDER_BEFORE_MS;
  if (due <= booked.now.getTime()) return;
  await enqueue(
    tx,
    REMINDER_JOB,
    {
      reservationId: booked.reservationId,
      sessionId: entry.record.id,
      startsAt: new Date(entry.startsAt).toISOString(),
    },
    { notBefore: new Date(due) },
  );
}

export interface ReminderFacts {
  to: string;
  firstName: string | null;
  reference: string;
  reason: string;
  course: { day1: string; day2: string; startTime: string; endTime: string };
  centre: { name: string; address: string; postalCode: string; city: string; phone: string | null };
  platformName: string;
}

/** To the person, two days before: when, where, whom to call, what to bring; the 48N deadline for a probationary course. */
export function reminderMail(f: ReminderFacts): Mail {
  const c = f.centre;
  const s = f.course;
  const probationary = f.reason === 'probationary';
  return {
    to: f.to,
    subject: `Rappel : votre stage commence le ${frenchDate(s.day1)} à ${c.city} (réservation ${f.reference})`,
    text: [
      `Bonjour${f.firstName ? ` ${f.firstName}` : ''},`,
      '',
      `Votre stage de récupération de points commence dans deux jours. Référence : ${f.reference}`,
      '',
      `Stage : ${frenchDate(s.day1)} et ${frenchDate(s.day2)}, de ${frenchTime(s.startTime)} à ${frenchTime(s.endTime)} (heure du centre)`,
      `Lieu : ${c.name}, ${c.address}, ${c.postalCode} ${c.city}`,
      ...(c.phone ? [`Téléphone du centre : ${displayPhone(c.phone)}`] : []),
      '',
      `À apporter les deux jours : votre permis de conduire et une pièce d’identité${probationary ? ', ainsi que la lettre 48N' : ''}.`,
      ...(probationary
        ? [
            '',
            'Permis probatoire : le stage doit être suivi dans les quatre mois qui suivent la réception de la lettre 48N. Si vous ne pouvez pas venir, contactez le centre sans attendre pour trouver une autre date dans ce délai.',
          ]
        : []),
      '',
      'Un empêchement ? Prévenez le centre au plus tôt.',
      '',
      f.platformName,
    ].join('\n'),
  };
}

/**
 * At its time, the job reads the reservation again: cancelled, purged, moved to another session,
 * the session cancelled or rescheduled, or already begun → nothing is sent and the job completes.
 * Otherwise, in one transaction, the job's own row is deleted (only if this worker still holds it)
 * and the email put in the outbox: a second run of the job (its worker died after the commit, its
 * lease ran out) finds no row and sends nothing, so the reminder is queued exactly once.
 */
export function registerReminders(app: FastifyInstance, platformName: string): void {
  const db: Db = app.database.db;
  app.jobs.handle(REMINDER_JOB, async (payload, job) => {
    const p = reminderPayload.parse(payload);
    const queued = await db.transaction(async (tx) => {
      const [row] = await tx
        .select({
          email: reservations.email,
          firstName: reservations.firstName,
          reference: reservations.reference,
          reason: reservations.reason,
          status: reservations.status,
          purgedAt: reservations.purgedAt,
          sessionId: reservations.sessionId,
          sessionStatus: stageSessions.status,
          startsAt: sql<string>`to_char(${sessionStart} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
          day1: stageSessions.day1,
          day2: stageSessions.day2,
          startTime: stageSessions.startTime,
          endTime: stageSessions.endTime,
          centreName: centres.name,
          address: centres.address,
          postalCode: centres.postalCode,
          city: centres.city,
          phone: centres.phone,
        })
        .from(reservations)
        .innerJoin(stageSessions, eq(stageSessions.id, reservations.sessionId))
        .innerJoin(centres, eq(centres.id, stageSessions.centreId))
        .where(eq(reservations.id, p.reservationId));
      const [mine] = await tx
        .delete(jobs)
        .where(and(eq(jobs.id, job.id), eq(jobs.lockedBy, app.jobs.id)))
        .returning({ id: jobs.id });
      if (!mine) return false;
      const stillDue =
        row !== undefined &&
        row.email !== null &&
        row.purgedAt === null &&
        row.status !== 'cancelled' &&
        row.sessionId === p.sessionId &&
        row.sessionStatus === 'scheduled' &&
        row.startsAt === p.startsAt &&
        app.clock.now().getTime() < Date.parse(row.startsAt);
      if (!stillDue) return false;
      await queueMail(
        tx,
        reminderMail({
          to: row.email as string,
          firstName: row.firstName,
          reference: row.reference,
          reason: row.reason,
          course: { day1: row.day1, day2: row.day2, startTime: row.startTime, endTime: row.endTime },
          centre: {
            name: row.centreName,
            address: row.address,
            postalCode: row.postalCode,
            city: row.city,
            phone: row.phone,
          },
          platformName,
        }),
        { secret: false },
      );
      return true;
    });
    if (queued) app.jobs.wake();
  });
}
