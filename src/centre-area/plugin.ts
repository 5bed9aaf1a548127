import type { FastifyInstance } from 'fastify';
import { areaContext } from './context.js';
import { attendanceRoutes } from './routes/attendance.js';
import { attendanceSheetRoutes } from './routes/attendance-sheet.js';
import { bookingsRoutes } from './routes/bookings.js';
import { cancelSessionRoute } from './routes/cancel-session.js';
import { dashboardRoute } from './routes/dashboard.js';
import { detailsRoute } from './routes/details.js';
import { editSessionRoute } from './routes/edit-session.js';
import { historyRoute } from './routes/history.js';
import { importRoute } from './routes/import.js';
import { keysRoute } from './routes/keys.js';
import { newSessionRoute } from './routes/new-session.js';
import { placesRoute } from './routes/places.js';
import { teamRoute } from './routes/team.js';
import { webhooksRoute } from './routes/webhooks.js';

// Forms of a few short fields.
const FORM_BODY_LIMIT = 16 * 1024;

/** A form's fields; a name sent more than once (checkboxes) gives the list of its values. */
function formFields(body: string): Record<string, string | string[]> {
  const fields = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body)) fields.set(name, [...(fields.get(name) ?? []), value]);
  return Object.fromEntries(
    [...fields].map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]),
  );
}

/**
 * The centres' area (/espace-centre): a signed-in owner or staff member sees their centres'
 * upcoming sessions and keeps them true, through the same domain functions as the partner API.
 * Only the session cookie opens it: an API key or an agent's token is sent to sign in like anyone
 * else. One file per route in routes/, sharing the dashboard (context.tsx).
 */
export async function registerCentreArea(app: FastifyInstance): Promise<void> {
  const context = areaContext(app);
  await app.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, formFields(body as string)),
    );
    // Before anything else of the area: who is signed in. Nobody: to the sign-in page.
    scope.addHook('onRequest', async (request, reply) => {
      const user = await app.accounts.user(request);
      if (!user) return reply.header('cache-control', 'no-store').redirect('/connexion', 303);
      request.areaUser = user;
    });
    dashboardRoute(scope, context);
    placesRoute(scope, context);
    newSessionRoute(scope);
    cancelSessionRoute(scope, context);
    editSessionRoute(scope);
    importRoute(scope);
    bookingsRoutes(scope, context);
    attendanceRoutes(scope, context);
    attendanceSheetRoutes(scope);
    webhooksRoute(scope, context);
    detailsRoute(scope, context);
    teamRoute(scope, context);
    keysRoute(scope, context);
    historyRoute(scope);
  });
}
