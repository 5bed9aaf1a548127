import type { FastifyReply, FastifyRequest } from 'fastify';
import { siteErrorPage } from '../web/error-page.js';
import type { GuardVerdict } from '../web/form-guard.js';
import type { SiteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';

/*
 * How the reservations answer: pages that are never cached nor indexed (they show what one
 * person typed, or lead to their reservation), and error pages that say why and that nothing
 * was stored.
 */

export const GUARD_NOTICES: Record<Exclude<GuardVerdict, 'ok'>, string> = {
  'cross-site':
    'Ce formulaire a été envoyé depuis un autre site : par sécurité, rien n’a été enregistré. Remplissez-le ici, sur cette page.',
  'no-cookie':
    'Votre navigateur n’a pas renvoyé le cookie de sécurité du formulaire (cookies bloqués, ou page ouverte depuis longtemps) : rien n’a été enregistré. Vérifiez que les cookies sont permis pour ce site, puis envoyez à nouveau le formulaire ci-dessous.',
  mismatch:
    'Ce formulaire a expiré (il a été ouvert dans une autre fenêtre, ou avant un redémarrage du navigateur) : rien n’a été enregistré. Envoyez à nouveau le formulaire ci-dessous.',
};

/** A reservation's private page: the link people keep. */
export function privatePath(token: string): string {
  return `/reservations/${token}`;
}

export const htmlAnswer = privateHtml;

export function errorAnswer(reply: FastifyReply, site: SiteInfo, status: number, message: string) {
  return htmlAnswer(reply, status, siteErrorPage(site, status, message));
}

export function isForm(request: FastifyRequest): boolean {
  return (
    (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded'
  );
}

export function notAForm(reply: FastifyReply, site: SiteInfo) {
  return errorAnswer(
    reply,
    site,
    415,
    'Ce formulaire doit être envoyé depuis la page du stage. Rien n’a été enregistré.',
  );
}

export function reservationNotFound(reply: FastifyReply, site: SiteInfo) {
  return errorAnswer(
    reply,
    site,
    404,
    'Ce lien ne mène à aucune réservation : il est incomplet, ou la réservation a été effacée après le stage.',
  );
}
