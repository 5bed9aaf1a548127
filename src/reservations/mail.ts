/* The reservation emails' texts; they go out through the outbox (src/mail/). */
import { formatPrice } from '../catalogue/price.js';
import type { SessionEntry } from '../catalogue/read-model.js';
import type { Mail } from '../mail/transport.js';
import { frenchDate, hours } from '../web/format.js';
import { CANCELLATION_TERMS_TITLE, cancellationTermsText } from './cancellation-terms.js';
import { REASONS, type Reason } from './form.js';
import { displayPhone } from './phone.js';

export interface BookedMailFacts {
  reference: string;
  entry: SessionEntry;
  person: { firstName: string; lastName: string; email: string; phone: string; reason: Reason };
  centre: { name: string; phone: string | null; cancellationTerms: string | null };
  privateUrl: string;
  paymentNote: string;
  platformName: string;
  /**
   * A date change from the person's area: the course left (at this centre, or at another when
   * `otherCentre`), so that each email says it is a change and not a first booking.
   */
  changedFrom?: { course: CancelledCourse; centreName: string; otherCentre: boolean };
}

function sessionLines(f: BookedMailFacts): string[] {
  const s = f.entry.view;
  const c = s.centre;
  return [
    `Stage : ${frenchDate(s.day1)} et ${frenchDate(s.day2)}, ${hours(f.entry)}`,
    `Lieu : ${c.name}, ${c.address}, ${c.postalCode} ${c.city}`,
    `Prix : ${formatPrice(s.priceEuros)}`,
    `Numéro du stage : ${f.entry.record.courseNumber}`,
  ];
}

/** To the person: the reference, the session, how to pay, and the private link. */
export function confirmationMail(f: BookedMailFacts): Mail {
  const from = f.changedFrom;
  return {
    to: f.person.email,
    subject: `${from ? 'Changement de date' : 'Réservation'} ${f.reference} : stage du ${frenchDate(f.entry.view.day1)} à ${f.entry.view.centre.city}`,
    text: [
      `Bonjour ${f.person.firstName},`,
      '',
      ...(from
        ? [
            `Votre changement de date est fait : votre place au stage du ${frenchDate(from.course.day1)} et du ${frenchDate(from.course.day2)} (${from.centreName}, ${from.course.city}) est rendue, et une place vous est réservée au stage ci-dessous. Le centre doit la confirmer, comme pour une nouvelle réservation.`,
            ...(from.otherCentre
              ? [
                  `C’est un autre centre : votre réservation au premier centre est annulée et celle-ci en est une nouvelle, avec sa propre référence. Le paiement se règle avec chaque centre (remboursement éventuel auprès du premier, paiement auprès du nouveau).`,
                ]
              : []),
            '',
          ]
        : []),
      `Votre place est réservée. Référence : ${f.reference}`,
      '',
      ...sessionLines(f),
      '',
      f.paymentNote,
      '',
      `${CANCELLATION_TERMS_TITLE} :`,
      cancellationTermsText(f.centre.cancellationTerms),
      '',
      `Le centre : ${f.centre.name}${f.centre.phone ? `, ${f.centre.phone}` : ''}`,
      '',
      'Voir ou annuler votre réservation (lien personnel, ne le partagez pas) :',
      f.privateUrl,
      '',
      'Retrouver toutes mes réservations (connexion par un lien envoyé à cette adresse) :',
      new URL('/connexion', f.privateUrl).href,
      '',
      'À apporter les deux jours : une pièce d’identité et votre permis de conduire (et, pour un permis probatoire, la lettre 48N).',
      '',
      f.platformName,
    ].join('\n'),
  };
}

/** To the centre: who booked which session, and how to confirm it. */
export function centreNoticeMail(f: BookedMailFacts, centreEmail: string): Mail {
  const p = f.person;
  const from = f.changedFrom;
  const first = !from
    ? `Nouvelle réservation ${f.reference} (en attente de votre confirmation).`
    : from.otherCentre
      ? `Nouvelle réservation ${f.reference} par un changement de date (en attente de votre confirmation) : la personne quitte un stage d’un autre centre.`
      : `Changement de date de la réservation ${f.reference} (en attente de votre confirmation) : la personne quitte votre stage du ${frenchDate(from.course.day1)} et du ${frenchDate(from.course.day2)}, dont la place est remise en vente, pour celui-ci.`;
  return {
    to: centreEmail,
    subject: `${from && !from.otherCentre ? 'Changement de date' : 'Nouvelle réservation'} ${f.reference} : stage du ${frenchDate(f.entry.view.day1)}`,
    text: [
      first,
      '',
      ...sessionLines(f),
      '',
      `Stagiaire : ${p.firstName} ${p.lastName}`,
      `E-mail : ${p.email}`,
      `Téléphone : ${displayPhone(p.phone)}`,
      `Motif : ${REASONS[p.reason]}`,
      '',
      'Confirmez ou annulez-la par l’API partenaire : PATCH /api/admin/reservations/{id} avec {"status": "confirmed"} ou {"status": "cancelled"} ; la liste : GET /api/admin/reservations?status=pending.',
      '',
      f.platformName,
    ].join('\n'),
  };
}

/** A cancelled course as its email names it (read from the database: its centre may be off sale). */
export interface CancelledCourse {
  day1: string;
  day2: string;
  city: string;
}

/** To a person whose course the centre cancelled: why, and that nothing is owed for it. */
export function sessionCancelledMail(f: {
  to: string;
  firstName: string | null;
  reference: string;
  course: CancelledCourse;
  reason: string;
  centre: { name: string; phone: string | null };
  platformName: string;
}): Mail {
  const s = f.course;
  return {
    to: f.to,
    subject: `Stage annulé : ${frenchDate(s.day1)} à ${s.city} (réservation ${f.reference})`,
    text: [
      `Bonjour${f.firstName ? ` ${f.firstName}` : ''},`,
      '',
      `Le centre ${f.centre.name} a annulé le stage du ${frenchDate(s.day1)} et du ${frenchDate(s.day2)}. Votre réservation ${f.reference} est annulée : votre place n’existe plus, et ce stage ne peut pas vous être facturé.`,
      '',
      `Raison donnée par le centre : ${f.reason}`,
      '',
      `Pour une autre date, contactez le centre${f.centre.phone ? ` (${f.centre.phone})` : ''} ou cherchez un autre stage sur ${f.platformName}.`,
      '',
      f.platformName,
    ].join('\n'),
  };
}

/** To the centre a person left for another centre's course: the reservation is cancelled, its place on sale again. */
export function centreMovedAwayMail(f: {
  to: string;
  reference: string;
  course: CancelledCourse;
  person: { firstName: string | null; lastName: string | null };
  platformName: string;
}): Mail {
  const s = f.course;
  return {
    to: f.to,
    subject: `Réservation ${f.reference} annulée (changement de date) : stage du ${frenchDate(s.day1)}`,
    text: [
      `La réservation ${f.reference} de ${f.person.firstName ?? ''} ${f.person.lastName ?? ''} pour votre stage du ${frenchDate(s.day1)} et du ${frenchDate(s.day2)} est annulée : la personne a changé de date pour un stage d’un autre centre. Sa place est remise en vente.`,
      '',
      'Un paiement déjà reçu pour cette réservation se règle directement avec la personne, selon vos conditions.',
      '',
      f.platformName,
    ].join('\n'),
  };
}
