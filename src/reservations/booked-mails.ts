import type { FastifyInstance } from 'fastify';
import type { SessionEntry } from '../catalogue/read-model.js';
import { privatePath } from './answers.js';
import type { ReservationContext } from './context.js';
import { type BookedMailFacts, centreNoticeMail, confirmationMail } from './mail.js';
import { centreContact, type ReservationRow } from './repository.js';

/**
 * After a booking: the confirmation to the person and the notice to the centre, when mail is
 * configured. Never throws: the reservation stands whatever the mail server says.
 */
export async function sendBookedMails(
  app: FastifyInstance,
  context: ReservationContext,
  booked: { reservation: ReservationRow; token: string; entry: SessionEntry; person: BookedMailFacts['person'] },
): Promise<void> {
  const { mailer, site } = context;
  if (!mailer) return;
  const { reservation, entry } = booked;
  try {
    const centre = await centreContact(app.database.db, reservation.centreId);
    const facts: BookedMailFacts = {
      reference: reservation.reference,
      entry,
      person: booked.person,
      centre: { name: centre?.name ?? entry.view.centre.name, phone: centre?.phone ?? null },
      privateUrl: `${site.baseUrl}${privatePath(booked.token)}`,
      paymentNote: context.paymentNote,
      platformName: site.name,
    };
    await mailer.send(confirmationMail(facts));
    if (centre?.email) await mailer.send(centreNoticeMail(facts, centre.email));
  } catch (err) {
    // The reservation stands; the page already shows the reference and the private link.
    // The code only: an SMTP server's refusal text often quotes the recipient's address.
    const { code, responseCode } = err as { code?: unknown; responseCode?: unknown };
    app.log.warn({ reservation: reservation.id, code, responseCode }, 'reservation mail not sent');
  }
}
