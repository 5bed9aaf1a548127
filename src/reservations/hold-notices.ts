import type { SessionEntry } from '../catalogue/read-model.js';
import { clockTimeIn, frenchTime, zoneNote } from '../web/format.js';
import type { HeldPlace } from './repository/held-place.js';

/** When a hold ends, as the person reads it: "14 h 15", in the session's zone. */
export function holdUntil(entry: SessionEntry, expiresAt: Date): string {
  return frenchTime(clockTimeIn(expiresAt, entry.centre.timeZone));
}

/**
 * What the hold's page says when the hold no longer keeps a place: the form is then the ordinary
 * one, and books a place on sale if one is left. Undefined for an active hold.
 */
export function holdEndedNotice(entry: SessionEntry, held: HeldPlace | undefined): string | undefined {
  if (!held)
    return 'Ce lien de place mise de côté n’est pas valable (incomplet, ou pour un autre stage) : aucune place n’est retenue pour vous. Vous pouvez réserver normalement s’il reste des places.';
  const zone = zoneNote(entry.centre.timeZone);
  switch (held.state) {
    case 'active':
      return undefined;
    case 'expired':
      return `Le délai de la place mise de côté pour vous est passé (${holdUntil(entry, held.expiresAt)}${zone ? `, ${zone}` : ''}) : elle a été remise en vente. Vous pouvez réserver normalement s’il reste des places.`;
    case 'released':
      return 'La place mise de côté pour vous a été rendue (par l’assistant qui l’avait retenue, ou parce que le stage a changé) : vous pouvez réserver normalement s’il reste des places.';
    case 'completed':
      return 'Cette place mise de côté a déjà été réservée : retrouvez la réservation avec le lien reçu par e-mail, ou dans votre espace (Mon espace). Une nouvelle réservation prendrait une autre place.';
  }
}
