import type { FastifyInstance } from 'fastify';
import { operatorContext } from './context.js';
import { centreRoutes } from './routes/centres.js';
import { historyRoute } from './routes/history.js';
import { keysRoutes } from './routes/keys.js';
import { usersRoutes } from './routes/users.js';
import { webhookHealthRoute } from './routes/webhooks.js';

// Forms of a few short fields.
const FORM_BODY_LIMIT = 16 * 1024;

/** A form's fields; a name sent more than once gives the list of its values. */
function formFields(body: string): Record<string, string | string[]> {
  const fields = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body)) fields.set(name, [...(fields.get(name) ?? []), value]);
  return Object.fromEntries(
    [...fields].map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]),
  );
}

/**
 * The operators' area (/administration): the platform's operators (users with the role admin)
 * search, create, suspend and restore centres, watch approvals end, disable users, manage API keys,
 * read the history of everything and the webhooks' health, through the same domain functions as
 * /api/admin/*. Only the session cookie of an admin opens it: nobody signed in is sent to
 * /connexion (an API key or agent token included); a signed-in user who is no operator gets a 403 page.
 */
export async function registerOperatorArea(app: FastifyInstance): Promise<void> {
  const context = operatorContext(app);
  await app.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, formFields(body as string)),
    );
    scope.addHook('onRequest', async (request, reply) => {
      const user = await app.accounts.user(request);
      if (!user) return reply.header('cache-control', 'no-store').redirect('/connexion', 303);
      if (!user.admin)
        return context.refusal(
          reply,
          403,
          'Accès réservé',
          'Cette partie est réservée à l’exploitant du service. Votre espace est l’espace centre.',
        );
      request.areaUser = user;
    });
    centreRoutes(scope, context);
    usersRoutes(scope, context);
    keysRoutes(scope, context);
    historyRoute(scope, context);
    webhookHealthRoute(scope, context);
  });
}
