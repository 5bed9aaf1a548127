import type { SessionEntry } from '../catalogue/read-model.js';
import type { Tx } from '../db/write.js';
import { queueMail } from '../mail/outbox.js';
import { privatePath } from './answers.js';
import type { ReservationContext } from './context.js';
import { ICS_CONTENT_TYPE, icsFacts, icsFileName, reservationIcs } from './ics.js';
import { type BookedMailFacts, centreMovedAwayMail, centreNoticeMail, confirmationMail } from './mail.js';
import { queueReminder } from './reminder.js';
import { centreContact, courseOf, type ReservationRow } from './repository.js';

export interface BookedMails {
  reservation: ReservationRow;
  /** The private link's secret: it exists in clear only in this transaction and the person's mail. */
  token: string;
  entry: SessionEntry;
  person: BookedMailFacts['person'];
  /** The service's clock at booking: a course less than two days away gets no reminder. */
  now: Date;
  /** A date change: the reservation left (its session, centre and person as they were). */
  changedFrom?: { reservation: ReservationRow; otherCentre: boolean };
}

/**
 * In the booking's transaction: the confirmation to the person and the notice to the centre go to
 * the outbox, so that they are sent (and retried until the mail server takes them) if and only if
 * the booking commits; the page answers without waiting for the mail server. The confirmation
 * holds the private link: its row is secret (mail/outbox.ts). The reminder two days before the
 * course is queued with them (reminder.ts).
 */
export async function queueBookedMails(
  tx: Tx,
  context: Pick<ReservationContext, 'site' | 'paymentNote'>,
  booked: BookedMails,
): Promise<void> {
  const { reservation, entry } = booked;
  const centre = await centreContact(tx, reservation.centreId);
  const left = booked.changedFrom && (await courseOf(tx, booked.changedFrom.reservation));
  const facts: BookedMailFacts = {
    reference: reservation.reference,
    entry,
    person: booked.person,
    centre: {
      name: centre?.name ?? entry.view.centre.name,
      phone: centre?.phone ?? null,
      cancellationTerms: centre?.cancellationTerms ?? null,
    },
    privateUrl: `${context.site.baseUrl}${privatePath(booked.token)}`,
    paymentNote: context.paymentNote,
    platformName: context.site.name,
    ...(left && booked.changedFrom
      ? {
          changedFrom: {
            course: left.course,
            centreName: left.centreName,
            otherCentre: booked.changedFrom.otherCentre,
          },
        }
      : {}),
  };
  // The calendar file rides along: the course's days, the centre's address and phone, the reference
  // (no more than the email says); stamped with the moment of the booking.
  const calendar = {
    filename: icsFileName(reservation.reference),
    contentType: ICS_CONTENT_TYPE,
    content: reservationIcs(
      icsFacts(reservation, entry, centre?.phone ?? null, reservation.consentAt, context.site.baseUrl),
    ),
  };
  await queueMail(tx, { ...confirmationMail(facts), attachments: [calendar] }, { secret: true });
  if (centre?.email) await queueMail(tx, centreNoticeMail(facts, centre.email), { secret: false });
  // A change to another centre is a cancellation at the first: it is told too.
  const previous = booked.changedFrom?.reservation;
  if (left?.centreEmail && previous && booked.changedFrom?.otherCentre)
    await queueMail(
      tx,
      centreMovedAwayMail({
        to: left.centreEmail,
        reference: previous.reference,
        course: left.course,
        person: { firstName: previous.firstName, lastName: previous.lastName },
        platformName: context.site.name,
      }),
      { secret: false },
    );
  await queueReminder(tx, { reservationId: reservation.id, entry, now: booked.now });
}
