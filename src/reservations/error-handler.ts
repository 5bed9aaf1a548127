import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { SiteInfo } from '../web/layout.js';
import { errorAnswer, notAForm } from './answers.js';

/**
 * The reservations' errors as pages a person can read, each saying that nothing was stored: the
 * database out of reach, a body too long or not a form, too many requests, or a failure.
 */
export function reservationErrorHandler(site: SiteInfo) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isDatabaseUnavailable(err)) {
      // Its class and code only (core/loggable-error.ts): the statement's parameters hold names, email, phone.
      request.log.warn({ err }, 'database unavailable; reservation page answered 503');
      return errorAnswer(
        reply.header('retry-after', 5),
        site,
        503,
        'Le service ne peut pas enregistrer de réservation en ce moment. Rien n’a été enregistré : réessayez dans quelques instants.',
      );
    }
    if (err.statusCode === 413)
      return errorAnswer(reply, site, 413, 'Le formulaire envoyé est trop long. Rien n’a été enregistré.');
    if (err.statusCode === 415 || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return notAForm(reply, site);
    if (err.statusCode === 429)
      return errorAnswer(
        reply,
        site,
        429,
        'Vous avez fait beaucoup de demandes en peu de temps. Rien n’a été enregistré : réessayez dans une minute.',
      );
    if (err.statusCode !== undefined && err.statusCode < 500)
      return errorAnswer(
        reply,
        site,
        err.statusCode,
        'Cette demande n’a pas pu être traitée. Rien n’a été enregistré.',
      );
    request.log.error({ err }, 'reservation failed');
    return errorAnswer(
      reply,
      site,
      500,
      'La réservation n’a pas pu être enregistrée. Rien n’a été enregistré : réessayez.',
    );
  };
}
