import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GUARD_REFUSED } from '../accounts/area.js';
import type { User } from '../accounts/users.js';
import { dateIn } from '../core/clock.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { agentsOfPerson, revokeClaim } from './person-agents.js';
import { PersonAgentsPage } from './person-agents-page.js';
import { CLAIM_ID, PERSON_AGENTS_PATH } from './policy.js';

const REVOKED = 'Autorisation retirée : cet assistant ne peut plus rien faire pour vous, dès sa prochaine demande.';
const NOT_IN_FORCE = 'Cet assistant n’avait pas (ou plus) votre autorisation : rien n’a changé.';

/**
 * /mon-espace/agents, in the people's area's signed-in scope: the agents the person lets act for
 * them, and withdrawing one (its tokens are refused at their next request, on every instance).
 */
export function personAgentsRoutes(app: FastifyInstance, scope: FastifyInstance): void {
  const site = siteInfo(app.config);
  const db = app.database.db;
  const hidden = { schema: { hide: true } };
  const userOf = (request: FastifyRequest) => request.areaUser as User;

  scope.get(PERSON_AGENTS_PATH, hidden, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const notice = query.retire === '1' ? REVOKED : query.retire === 'deja' ? NOT_IN_FORCE : undefined;
    const agents = await agentsOfPerson(db, userOf(request).id);
    return privateHtml(
      reply,
      200,
      renderPage(
        <PersonAgentsPage
          site={site}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          agents={agents}
          dayOf={(at) => dateIn(at, undefined)}
          notice={notice}
        />,
      ),
    );
  });

  scope.post(`${PERSON_AGENTS_PATH}/:claimId/retrait`, hidden, async (request, reply) => {
    const user = userOf(request);
    const { claimId } = request.params as { claimId: string };
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (app.accounts.guard.check(request, form._csrf) !== 'ok')
      return privateHtml(
        reply,
        403,
        renderPage(
          <PersonAgentsPage
            site={site}
            formToken={app.accounts.guard.tokenFor(request, reply)}
            agents={await agentsOfPerson(db, user.id)}
            dayOf={(at) => dateIn(at, undefined)}
            problem={GUARD_REFUSED}
          />,
        ),
      );
    const revoked = CLAIM_ID.test(claimId) && (await revokeClaim(db, claimId, user.id, app.clock.now()));
    if (revoked) request.log.info('agent claim revoked by its person');
    return reply
      .header('cache-control', 'no-store')
      .redirect(`${PERSON_AGENTS_PATH}?retire=${revoked ? '1' : 'deja'}`, 303);
  });
}
