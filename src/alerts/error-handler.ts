import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { siteErrorPage } from '../web/error-page.js';
import type { SiteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';

function errorAnswer(reply: FastifyReply, site: SiteInfo, status: number, message: string) {
  return privateHtml(reply, status, siteErrorPage(site, status, message));
}

/** The alert pages' errors as pages a person can read, each saying that nothing was done. */
export function alertErrorHandler(site: SiteInfo) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isDatabaseUnavailable(err)) {
      // Its class and code only (core/loggable-error.ts): the statement's parameters hold the email.
      request.log.warn({ err }, 'database unavailable; alert page answered 503');
      return errorAnswer(
        reply.header('retry-after', 5),
        site,
        503,
        'Le service ne peut pas enregistrer d’alerte en ce moment. Rien n’a été fait : réessayez dans quelques instants.',
      );
    }
    if (err.statusCode === 413)
      return errorAnswer(reply, site, 413, 'Le formulaire envoyé est trop long. Rien n’a été fait.');
    if (err.statusCode === 415 || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      return errorAnswer(reply, site, 415, 'Ce formulaire doit être envoyé depuis la page du site. Rien n’a été fait.');
    if (err.statusCode === 429)
      return errorAnswer(
        reply,
        site,
        429,
        'Vous avez fait beaucoup de demandes en peu de temps. Rien n’a été fait : réessayez dans une minute.',
      );
    if (err.statusCode !== undefined && err.statusCode < 500)
      return errorAnswer(reply, site, err.statusCode, 'Cette demande n’a pas pu être traitée. Rien n’a été fait.');
    request.log.error({ err }, 'alert request failed');
    return errorAnswer(reply, site, 500, 'L’alerte n’a pas pu être traitée. Rien n’a été fait : réessayez.');
  };
}
