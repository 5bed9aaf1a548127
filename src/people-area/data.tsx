import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GUARD_REFUSED, registerSignedInArea } from '../accounts/area.js';
import { accountDataOf } from '../accounts/personal-data.js';
import type { User } from '../accounts/users.js';
import { dateIn } from '../core/clock.js';
import { reservationsForEmail } from '../reservations/repository.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { erasePersonalData } from './data-erase.js';
import { exportPersonalData } from './data-export.js';
import {
  DATA_DELETE_PATH,
  DATA_DOWNLOAD_PATH,
  DATA_PATH,
  DataPage,
  DeleteConfirmPage,
  DeletedPage,
} from './data-pages.js';

// A form of one hidden field.
const FORM_BODY_LIMIT = 4 * 1024;

const ROLE_NAMES = { owner: 'responsable', staff: 'équipe' } as const;

/**
 * "Mes données" (/mon-espace/donnees), for a signed-in person: what is held about their email, its
 * download (JSON, everything data-export.ts's sections read), and its deletion (data-erase.ts) after a
 * confirmation page, by a guarded POST that signs the person out. Only the session cookie opens it.
 */
export async function registerPeopleData(app: FastifyInstance): Promise<void> {
  const site = siteInfo(app.config);
  const db = app.database.db;
  const { accounts } = app;
  const hidden = { schema: { hide: true } };
  const userOf = (request: FastifyRequest) => request.areaUser as User;
  /** Today in the zone of the session's centre: a course cannot be cancelled from its first day. */
  const today = (sessionId: string) =>
    dateIn(app.clock.now(), app.catalogue.snapshot.sessionsById.get(sessionId)?.centre.timeZone);

  const confirmPage = async (request: FastifyRequest, reply: FastifyReply, status: number, problem?: string) => {
    const user = userOf(request);
    const active = (await reservationsForEmail(db, user.email)).filter((r) => r.status !== 'cancelled');
    const toCancel = active.filter((r) => r.session.day1 > dateIn(app.clock.now(), r.centre.timeZone));
    const begun = active.filter((r) => !toCancel.includes(r));
    return privateHtml(
      reply,
      status,
      renderPage(
        <DeleteConfirmPage
          site={site}
          user={user}
          formToken={accounts.guard.tokenFor(request, reply)}
          toCancel={toCancel}
          begun={begun}
          problem={problem}
        />,
      ),
    );
  };

  await registerSignedInArea(app, { bodyLimit: FORM_BODY_LIMIT }, (scope) => {
    scope.get(DATA_PATH, hidden, async (request, reply) => {
      const user = userOf(request);
      const [account, reservations] = await Promise.all([
        accountDataOf(db, user.email),
        reservationsForEmail(db, user.email),
      ]);
      const since = account.user?.createdAt;
      const roles = [
        ...(user.admin ? ['exploitant du service'] : []),
        ...user.memberships.map((m) => `${ROLE_NAMES[m.role]} de ${m.centreName}`),
      ];
      return privateHtml(
        reply,
        200,
        renderPage(
          <DataPage site={site} user={user} held={{ accountSince: since?.slice(0, 10), roles, reservations }} />,
        ),
      );
    });

    scope.get(DATA_DOWNLOAD_PATH, hidden, async (request, reply) => {
      const data = await exportPersonalData(db, userOf(request).email, app.clock.now(), site.name);
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', 'attachment; filename="mes-donnees.json"')
        .header('cache-control', 'no-store')
        .header('x-robots-tag', 'noindex')
        .send(`${JSON.stringify(data, null, 2)}\n`);
    });

    scope.get(DATA_DELETE_PATH, hidden, async (request, reply) => confirmPage(request, reply, 200));

    scope.post(DATA_DELETE_PATH, hidden, async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      if (accounts.guard.check(request, form._csrf) !== 'ok') return confirmPage(request, reply, 403, GUARD_REFUSED);
      const user = userOf(request);
      const { cancelled, erased } = await erasePersonalData(db, user.email, today);
      if (cancelled.length) await app.catalogue.refresh();
      // Every session of the user is gone (data-erase.ts); this browser forgets its cookie too.
      accounts.cookie.clear(reply);
      request.log.info({ cancelled: cancelled.length }, 'people area: personal data erased');
      return privateHtml(reply, 200, renderPage(<DeletedPage site={site} cancelled={cancelled} erased={erased} />));
    });
  });
}
