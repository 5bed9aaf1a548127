import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../accounts/users.js';
import { todayFor } from '../admin/declaration.js';
import { dateIn } from '../core/clock.js';
import { siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';
import { DashboardPage } from './pages.js';
import { daysBefore, notDeclared, upcomingSessions } from './repository.js';

export { GUARD_REFUSED } from '../accounts/area.js';

export interface Messages {
  notice?: string;
  problem?: string;
}

/** What the area's routes share: the dashboard, answered with a status and a message. */
export interface AreaContext {
  dashboard(
    request: FastifyRequest,
    reply: FastifyReply,
    user: User,
    status: number,
    messages?: Messages,
  ): Promise<unknown>;
  /** Whether the request's form carries this browser's anti-forgery token from one of our pages. */
  formOk(request: FastifyRequest, form: Record<string, unknown>): boolean;
}

export function areaContext(app: FastifyInstance): AreaContext {
  const site = siteInfo(app.config);
  const { accounts } = app;
  return {
    async dashboard(request, reply, user, status, messages = {}) {
      const today = dateIn(app.clock.now());
      const sessions = await upcomingSessions(
        app.database.db,
        user.memberships.map((m) => m.centreId),
        today,
      );
      // Each centre's own today (a Réunion centre's is not Paris's).
      const undeclared = new Map<string, number>();
      for (const s of sessions) {
        const centreToday = todayFor(app.clock, s.deptCode);
        if (notDeclared(s, centreToday)) undeclared.set(s.id, daysBefore(s, centreToday));
      }
      return privateHtml(
        reply,
        status,
        renderPage(
          <DashboardPage
            site={site}
            user={user}
            formToken={accounts.guard.tokenFor(request, reply)}
            today={today}
            sessions={sessions}
            undeclared={undeclared}
            {...messages}
          />,
        ),
      );
    },
    formOk: (request, form) => accounts.guard.check(request, form._csrf) === 'ok',
  };
}

/** The signed-in user of an area's request (set by the area's first hook). */
export function areaUser(request: FastifyRequest): User {
  if (!request.areaUser) throw new Error('an area route ran before the sign-in hook');
  return request.areaUser;
}
