import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normaliseEmail } from '../accounts/users.js';
import type { FormGuard } from '../web/form-guard.js';
import type { SiteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { confirmAlert, confirmLinkUsable } from './confirm-alert.js';
import { createAlert } from './create-alert.js';
import { type AlertCriteria, alertCriteria } from './criteria.js';
import { searchInWords, sessionInWords } from './describe.js';
import { unsubscribe } from './end-alert.js';
import { ALERT_TOKEN, confirmPath, unsubscribePath } from './links.js';
import { ALERT_FORM_PATH, AlertButtonPage, AlertFormPage, AlertMessagePage } from './pages.js';

/** The search filters an alert form may carry (the catalogue's names). */
const SEARCH_FIELDS = ['city', 'dept', 'near', 'radiusKm', 'from', 'to', 'maxPrice'] as const;

const GUARD_REFUSED =
  'Ce formulaire n’a pas pu être vérifié (envoyé depuis un autre site, cookies bloqués, ou page ouverte depuis longtemps) : aucune alerte n’a été créée. Envoyez-le à nouveau ci-dessous.';
const BAD_EMAIL = 'Indiquez une adresse e-mail complète, par exemple nom@exemple.fr.';
const LINK_GONE =
  'Ce lien ne mène à aucune alerte en attente : il a déjà servi, l’alerte a pris fin ou a été supprimée, ou il n’a jamais existé.';

/** What the form watches, as it was sent (to show it again) and as criteria (undefined: unusable). */
function watchedOf(form: Record<string, unknown>): { fields: Record<string, string>; criteria?: AlertCriteria } {
  const fields: Record<string, string> = {};
  if (typeof form.sessionId === 'string') fields.sessionId = form.sessionId.slice(0, 64);
  else
    for (const name of SEARCH_FIELDS) {
      const v = form[name];
      if (typeof v === 'string' && v.trim() !== '') fields[name] = v.slice(0, 100);
    }
  const parsed = alertCriteria.safeParse(
    fields.sessionId !== undefined ? { sessionId: fields.sessionId } : { search: fields },
  );
  return parsed.success ? { fields, criteria: parsed.data } : { fields };
}

function formOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

/**
 * RFC 8058's one-click body, `List-Unsubscribe=One-Click`, as a form (urlencoded) or as
 * multipart/form-data, the two a mail client may send.
 */
function isOneClick(request: FastifyRequest): boolean {
  const body = request.body;
  if (typeof body === 'string')
    return /name="?List-Unsubscribe"?\r?\n(?:[^\r\n]+\r?\n)*\r?\nOne-Click\r?\n/i.test(body);
  return formOf(body)['List-Unsubscribe'] === 'One-Click';
}

/**
 * The alerts' pages: the form's answer (POST /alertes), the confirmation link's page and its button,
 * and the one-click unsubscribe. The links' paths hold a secret: they are not written to the request
 * log (`logUrl: false`).
 */
export function alertRoutes(scope: FastifyInstance, deps: { app: FastifyInstance; site: SiteInfo; guard: FormGuard }) {
  const { app, site, guard } = deps;
  const db = app.database.db;
  const page = (reply: FastifyReply, status: number, body: preact.VNode) =>
    privateHtml(reply, status, renderPage(body));
  const hidden = { schema: { hide: true } };
  const secretPath = { schema: { hide: true }, config: { logUrl: false } };

  scope.post(ALERT_FORM_PATH, hidden, async (request, reply) => {
    const form = formOf(request.body);
    const { fields, criteria } = watchedOf(form);
    const typed = typeof form.email === 'string' ? form.email.slice(0, 254) : '';
    const entry =
      criteria && 'sessionId' in criteria ? app.catalogue.snapshot.sessionsById.get(criteria.sessionId) : undefined;
    const about = entry
      ? sessionInWords(entry)
      : criteria && 'search' in criteria
        ? `les nouveaux stages ${searchInWords(criteria.search)}`
        : undefined;
    const again = (status: number, extra: { notice?: string; error?: { field: string; message: string } }) =>
      page(reply, status, <AlertFormPage site={site} fields={fields} email={typed} about={about} {...extra} />);
    if (!guard.fromThisSite(request)) return again(403, { notice: GUARD_REFUSED });
    if (!criteria)
      return page(
        reply,
        400,
        <AlertMessagePage
          site={site}
          title="Cette alerte ne peut pas être créée"
          lines={[
            'Une alerte suit un stage complet, ou une recherche qui donne une ville ou un département (et, si vous le souhaitez, des dates et un prix maximum valables).',
            'Refaites la recherche, puis utilisez le formulaire « Prévenez-moi » sous ses résultats.',
          ]}
        />,
      );
    const email = normaliseEmail(form.email);
    if (!email) return again(400, { error: { field: 'email', message: BAD_EMAIL } });
    const budget = await app.chargeAlert(request, email);
    if (!budget.allowed) {
      reply.header('retry-after', budget.retryAfterSeconds);
      return again(429, {
        notice: `Trop d’alertes ont été demandées depuis ce réseau ou pour cette adresse. Aucune alerte n’a été créée : réessayez dans ${Math.ceil(budget.retryAfterSeconds / 60)} minute(s).`,
      });
    }
    // A signed-in person proved their address by the emailed sign-in: their own alert runs at once.
    const user = await app.accounts.user(request);
    const result = await createAlert(
      db,
      { email, criteria, creator: { via: 'site' }, confirmed: user?.email === email },
      { now: app.clock.now(), snapshot: app.catalogue.snapshot, baseUrl: site.baseUrl, platformName: site.name },
    );
    switch (result.kind) {
      case 'sent':
        app.jobs.wake();
        return page(
          reply,
          200,
          <AlertMessagePage
            site={site}
            title="Confirmez votre alerte"
            lines={[
              'Un e-mail de confirmation vient d’être envoyé à cette adresse. Ouvrez-le et appuyez sur « Activer l’alerte » : sans cela, vous ne recevrez rien.',
              'Pensez à regarder dans les courriers indésirables.',
            ]}
          />,
        );
      case 'active':
        return page(
          reply,
          200,
          <AlertMessagePage
            site={site}
            title="Votre alerte est active"
            lines={[
              'Vous êtes connecté avec cette adresse : l’alerte fonctionne dès maintenant. Vous la retrouvez dans votre espace.',
            ]}
            back={{ href: '/mon-espace/alertes', text: 'Mes alertes' }}
          />,
        );
      case 'too-many':
        return again(409, {
          notice:
            'Cette adresse suit déjà 10 alertes, le maximum. Supprimez-en une (lien en bas de chaque e-mail d’alerte, ou dans votre espace) avant d’en créer une autre.',
        });
      case 'too-many-mails':
        return again(429, {
          notice:
            'Trois e-mails de confirmation ont déjà été envoyés à cette adresse aujourd’hui. Confirmez l’alerte depuis l’un d’eux, ou réessayez demain.',
        });
      case 'not-full':
        return page(
          reply,
          409,
          <AlertMessagePage
            site={site}
            title="Ce stage a des places"
            lines={['Une place est libre en ce moment : vous pouvez la réserver directement sur la page du stage.']}
            back={{ href: `/stages/${fields.sessionId}`, text: 'Voir le stage' }}
          />,
        );
      case 'unknown-session':
        return page(
          reply,
          404,
          <AlertMessagePage
            site={site}
            title="Ce stage ne peut plus être suivi"
            lines={['Ce stage n’existe pas, a été annulé ou a déjà commencé : aucune alerte n’a été créée.']}
          />,
        );
    }
  });

  scope.get('/alertes/confirmer/:token', secretPath, async (request, reply) => {
    const { token } = request.params as { token: string };
    if (!ALERT_TOKEN.test(token) || !(await confirmLinkUsable(db, token, app.clock.now())))
      return page(reply, 410, <AlertMessagePage site={site} title="Lien d’alerte invalide" lines={[LINK_GONE]} />);
    return page(
      reply,
      200,
      <AlertButtonPage
        site={site}
        title="Activer votre alerte"
        text="Appuyez sur le bouton pour activer l’alerte : vous recevrez alors un e-mail dès que ce que vous attendez se présente."
        action={confirmPath(token)}
        button="Activer l’alerte"
        hidden={{ formToken: guard.tokenFor(request, reply) }}
      />,
    );
  });

  scope.post('/alertes/confirmer/:token', secretPath, async (request, reply) => {
    const { token } = request.params as { token: string };
    if (!ALERT_TOKEN.test(token))
      return page(reply, 410, <AlertMessagePage site={site} title="Lien d’alerte invalide" lines={[LINK_GONE]} />);
    if (guard.check(request, formOf(request.body).formToken) !== 'ok')
      return page(
        reply,
        403,
        <AlertButtonPage
          site={site}
          title="Activer votre alerte"
          notice={GUARD_REFUSED.replace('Envoyez-le à nouveau ci-dessous', 'Appuyez à nouveau ci-dessous')}
          text="Appuyez sur le bouton pour activer l’alerte."
          action={confirmPath(token)}
          button="Activer l’alerte"
          hidden={{ formToken: guard.tokenFor(request, reply) }}
        />,
      );
    if ((await confirmAlert(db, token, app.clock.now())) === 'invalid')
      return page(reply, 410, <AlertMessagePage site={site} title="Lien d’alerte invalide" lines={[LINK_GONE]} />);
    return page(
      reply,
      200,
      <AlertMessagePage
        site={site}
        title="Votre alerte est active"
        lines={[
          'C’est noté : vous recevrez un e-mail dès que ce que vous attendez se présente, au plus un toutes les 6 heures.',
          'Chaque e-mail contient un lien pour arrêter l’alerte en un clic.',
        ]}
      />,
    );
  });

  scope.get('/alertes/arret/:token', secretPath, async (request, reply) => {
    const { token } = request.params as { token: string };
    return page(
      reply,
      ALERT_TOKEN.test(token) ? 200 : 404,
      <AlertButtonPage
        site={site}
        title="Arrêter l’alerte"
        text="Appuyez sur le bouton pour arrêter cette alerte : vous ne recevrez plus d’e-mail pour elle, et elle est effacée."
        action={unsubscribePath(token)}
        button="Arrêter l’alerte"
        hidden={{ 'List-Unsubscribe': 'One-Click' }}
      />,
    );
  });

  // RFC 8058 one-click: the mail client POSTs from wherever it runs, with no cookie and no form
  // token; the link's secret is the whole proof (it ends one alert, nothing more).
  scope.post('/alertes/arret/:token', secretPath, async (request, reply) => {
    const { token } = request.params as { token: string };
    if (!isOneClick(request))
      return page(
        reply,
        400,
        <AlertMessagePage
          site={site}
          title="Demande incomplète"
          lines={['Pour arrêter l’alerte, ouvrez le lien de l’e-mail et appuyez sur « Arrêter l’alerte ».']}
        />,
      );
    const ended = ALERT_TOKEN.test(token) && (await unsubscribe(db, token));
    return page(
      reply,
      ended ? 200 : 404,
      <AlertMessagePage
        site={site}
        title={ended ? 'Alerte arrêtée' : 'Aucune alerte à arrêter'}
        lines={[
          ended
            ? 'C’est fait : vous ne recevrez plus d’e-mail pour cette alerte, et elle est effacée.'
            : 'Ce lien ne mène à aucune alerte en cours : elle est déjà arrêtée ou terminée. Vous ne recevrez plus d’e-mail pour elle.',
        ]}
      />,
    );
  });
}
