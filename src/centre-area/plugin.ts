import type { FastifyInstance } from 'fastify';
import { registerSignedInArea } from '../accounts/area.js';
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

/**
 * The centres' area (/espace-centre): a signed-in owner or staff member sees their centres'
 * upcoming sessions and keeps them true, through the same domain functions as the partner API.
 * Only the session cookie opens it: an API key or an agent's token is sent to sign in like anyone
 * else. One file per route in routes/, sharing the dashboard (context.tsx).
 */
export async function registerCentreArea(app: FastifyInstance): Promise<void> {
  const context = areaContext(app);
  await registerSignedInArea(app, { bodyLimit: FORM_BODY_LIMIT }, (scope) => {
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
