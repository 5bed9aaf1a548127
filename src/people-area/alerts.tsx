import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GUARD_REFUSED } from '../accounts/area.js';
import type { User } from '../accounts/users.js';
import { alertsOf, type PersonAlert } from '../alerts/alerts-of.js';
import { searchInWords, sessionInWords } from '../alerts/describe.js';
import { removeAlertOf } from '../alerts/end-alert.js';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { UUID } from '../core/uuid.js';
import { ErrorPage } from '../web/error-page.js';
import { frenchDate } from '../web/format.js';
import { Layout, type SiteInfo, siteInfo } from '../web/layout.js';
import { Notices } from '../web/notices.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';

/** Where a person's alerts are listed. */
export const MY_ALERTS = '/mon-espace/alertes';

const REMOVED = 'Alerte supprimée : vous ne recevrez plus d’e-mail pour elle.';
const NOT_YOURS = 'Aucune de vos alertes ne porte ce numéro.';

/** What an alert watches, in words, and the last day it runs. */
function described(alert: PersonAlert, snapshot: CatalogueSnapshot): { what: string; until: string } {
  // The day before its end instant, in UTC: a search's last first day, a session's start day.
  const lastDay = new Date(alert.endsAt.getTime() - 1).toISOString().slice(0, 10);
  if (alert.sessionId) {
    const entry = snapshot.sessionsById.get(alert.sessionId);
    return {
      what: entry ? `Une place libre pour ${sessionInWords(entry)}` : 'Une place libre sur un stage',
      until: entry ? `jusqu’au début du stage, le ${frenchDate(entry.record.day1)}` : `jusqu’au ${frenchDate(lastDay)}`,
    };
  }
  return {
    what: `Les nouveaux stages ${alert.search ? searchInWords(alert.search) : ''}`.trim(),
    until: `jusqu’au ${frenchDate(lastDay)} inclus`,
  };
}

function MyAlertsPage(props: {
  site: SiteInfo;
  formToken: string;
  alerts: { alert: PersonAlert; what: string; until: string }[];
  notice?: string | undefined;
  problem?: string | undefined;
}) {
  return (
    <Layout site={props.site} title="Mes alertes" description="Vos alertes « Prévenez-moi »" noindex>
      <h1>Mes alertes</h1>
      <p>
        <a href="/mon-espace">Mes réservations</a>
      </p>
      <Notices problem={props.problem} notice={props.notice} />
      {props.alerts.length === 0 ? (
        <p>
          Aucune alerte en cours pour cette adresse. Sur la page d’un stage complet, ou sous les résultats d’une
          recherche, « Prévenez-moi » vous écrit quand une place se présente.
        </p>
      ) : (
        props.alerts.map(({ alert, what, until }, i) => (
          <article class="card" aria-labelledby={`alerte-${i}`}>
            <h2 id={`alerte-${i}`}>{what}</h2>
            <p>
              {alert.confirmed ? 'Active' : 'En attente de confirmation (lien envoyé par e-mail)'}, {until}.
            </p>
            <form method="post" action={`${MY_ALERTS}/${alert.id}/suppression`}>
              <input type="hidden" name="_csrf" value={props.formToken} />
              <button type="submit" class="danger">
                Supprimer cette alerte
              </button>
            </form>
          </article>
        ))
      )}
    </Layout>
  );
}

/** The person's alerts in their area: listed (what, until when) and removed one at a time. */
export function peopleAlertRoutes(scope: FastifyInstance, app: FastifyInstance): void {
  const site = siteInfo(app.config);
  const hidden = { schema: { hide: true } };
  const userOf = (request: FastifyRequest) => request.areaUser as User;
  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    messages: { notice?: string; problem?: string } = {},
  ) => {
    const snapshot = app.catalogue.snapshot;
    const listed = (await alertsOf(app.database.db, userOf(request).email, app.clock.now())).map((alert) => ({
      alert,
      ...described(alert, snapshot),
    }));
    return privateHtml(
      reply,
      status,
      renderPage(
        <MyAlertsPage
          site={site}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          alerts={listed}
          {...messages}
        />,
      ),
    );
  };

  scope.get(MY_ALERTS, hidden, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    return page(request, reply, 200, query.supprimee === '1' ? { notice: REMOVED } : {});
  });

  scope.post(`${MY_ALERTS}/:id/suppression`, hidden, async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (app.accounts.guard.check(request, form._csrf) !== 'ok')
      return page(request, reply, 403, { problem: GUARD_REFUSED });
    const removed = UUID.test(id) && (await removeAlertOf(app.database.db, id, userOf(request).email));
    if (!removed)
      return privateHtml(reply, 404, renderPage(<ErrorPage site={site} status={404} message={NOT_YOURS} />));
    return reply.redirect(`${MY_ALERTS}?supprimee=1`, 303);
  });
}
