import { eraseAccountOf } from '../accounts/personal-data.js';
import { eraseAlertsOf } from '../alerts/personal-data.js';
import type { Db } from '../db/connect.js';
import type { Tx } from '../db/write.js';
import { cancelByEmail, eraseReservationsOf, reservationsForEmail } from '../reservations/repository.js';

/** What an eraser did, in the words the page says it to the person: what went, and what stays and why. */
export interface Erased {
  deleted: string[];
  kept: string[];
}

/**
 * One kind of personal data erased for an email, in the erasure's one transaction. Each kind adds
 * its eraser here with one line.
 */
export type DataEraser = (tx: Tx, email: string) => Promise<Erased>;

const plural = (n: number, one: string, many: string) => `${n} ${n > 1 ? many : one}`;

export const DATA_ERASERS: readonly DataEraser[] = [
  async (tx, email) => {
    const { erased, keptForCentre } = await eraseReservationsOf(tx, email);
    return {
      deleted: erased
        ? [
            `${plural(erased, 'réservation effacée', 'réservations effacées')} : nom, e-mail, téléphone et lien personnel ; la référence ne mène plus à personne.`,
          ]
        : [],
      kept: keptForCentre
        ? [
            `${plural(keptForCentre, 'réservation d’un stage commencé ou suivi garde', 'réservations de stages commencés ou suivis gardent')} votre nom et votre motif, sans votre e-mail ni votre téléphone : le centre en a besoin pour envoyer à la préfecture l’attestation de stage (article R223-8 du Code de la route). Ils seront effacés par la purge régulière qui suit le stage (une fois la liste des présents exportée, si le centre l’a tenue).`,
          ]
        : [],
    };
  },
  async (tx, email) => {
    const account = await eraseAccountOf(tx, email);
    return {
      deleted: [
        account.userDeleted
          ? 'Votre compte (votre adresse e-mail et sa date de création), vos connexions et vos liens de connexion.'
          : 'Vos connexions et vos liens de connexion : vous êtes déconnecté partout.',
      ],
      kept: account.keptForRole
        ? [
            'Votre compte (votre adresse e-mail) : il vous sert à travailler pour un centre ou pour le service ; c’est le centre ou l’exploitant qui vous retire ce rôle.',
          ]
        : [],
    };
  },
  async (tx, email) => {
    const deleted = await eraseAlertsOf(tx, email);
    return {
      deleted: deleted
        ? [
            `${plural(deleted, 'alerte « Prévenez-moi » supprimée', 'alertes « Prévenez-moi » supprimées')}, avec ce qu’elles surveillaient.`,
          ]
        : [],
      kept: [],
    };
  },
];

/**
 * A person's erasure of what is held about their email ("Mes données"). First their reservations not
 * yet begun are cancelled by their own cancel path (cancelByEmail: the place goes back at once, the
 * centre is told by the same change as any cancellation); then, in one transaction, every eraser
 * runs. A second run cancels and erases nothing more. Returns how many were cancelled and what each
 * eraser did.
 */
export async function erasePersonalData(
  db: Db,
  email: string,
  today: (sessionId: string) => string,
): Promise<{ cancelled: string[]; erased: Erased }> {
  const cancelled: string[] = [];
  for (const reservation of await reservationsForEmail(db, email)) {
    if (reservation.status === 'cancelled') continue;
    const result = await cancelByEmail(db, reservation.id, email, today);
    if (result.kind === 'cancelled') cancelled.push(reservation.reference);
  }
  const erased = await db.transaction(async (tx) => {
    const parts: Erased[] = [];
    for (const erase of DATA_ERASERS) parts.push(await erase(tx as Tx, email));
    return { deleted: parts.flatMap((p) => p.deleted), kept: parts.flatMap((p) => p.kept) };
  });
  return { cancelled, erased };
}
