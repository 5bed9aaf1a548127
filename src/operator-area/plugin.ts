import type { FastifyInstance } from 'fastify';
import { registerSignedInArea } from '../accounts/area.js';
import { operatorContext } from './context.js';
import { centreRoutes } from './routes/centres.js';
import { historyRoute } from './routes/history.js';
import { keysRoutes } from './routes/keys.js';
import { usersRoutes } from './routes/users.js';
import { webhookHealthRoute } from './routes/webhooks.js';

// Forms of a few short fields.
const FORM_BODY_LIMIT = 16 * 1024;

/**
 * The operators' area (/administration): the platform's operators (users with the role admin)
 * search, create, suspend and restore centres, watch approvals end, disable users, manage API keys,
 * read the history of everything and the webhooks' health, through the same domain functions as
 * /api/admin/*. Only the session cookie of an admin opens it: nobody signed in is sent to
 * /connexion (an API key or agent token included); a signed-in user who is no operator gets a 403 page.
 */
export async function registerOperatorArea(app: FastifyInstance): Promise<void> {
  const context = operatorContext(app);
  await registerSignedInArea(
    app,
    {
      bodyLimit: FORM_BODY_LIMIT,
      admit: (user, reply) =>
        user.admin
          ? undefined
          : context.refusal(
              reply,
              403,
              'Accès réservé',
              'Cette partie est réservée à l’exploitant du service. Votre espace est l’espace centre.',
            ),
    },
    (scope) => {
      centreRoutes(scope, context);
      usersRoutes(scope, context);
      keysRoutes(scope, context);
      historyRoute(scope, context);
      webhookHealthRoute(scope, context);
    },
  );
}
