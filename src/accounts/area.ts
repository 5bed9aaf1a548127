import type { FastifyInstance, FastifyReply } from 'fastify';
import type { User } from './users.js';

/** What every area's form says when the anti-forgery check refuses it. */
export const GUARD_REFUSED =
  'Ce formulaire n’a pas pu être vérifié (envoyé depuis un autre site, cookies bloqués, ou page ouverte depuis longtemps) : rien n’a été modifié.';

/** A form's fields; a name sent more than once (checkboxes) gives the list of its values. */
function formFields(body: string): Record<string, string | string[]> {
  const fields = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(body)) fields.set(name, [...(fields.get(name) ?? []), value]);
  return Object.fromEntries(
    [...fields].map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]),
  );
}

/**
 * An area behind sign-in, as every area is: its routes in a scope of their own that reads their
 * forms (at most `bodyLimit` bytes) and, before anything else, who is signed in: nobody (an API key
 * or an agent's token included) is sent to /connexion; a user `admit` answers for (a refusal page)
 * goes no further; anyone else is the request's `areaUser`.
 */
export async function registerSignedInArea(
  app: FastifyInstance,
  options: { bodyLimit: number; admit?: (user: User, reply: FastifyReply) => FastifyReply | undefined },
  routes: (scope: FastifyInstance) => void,
): Promise<void> {
  await app.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: options.bodyLimit },
      (_request, body, done) => done(null, formFields(body as string)),
    );
    scope.addHook('onRequest', async (request, reply) => {
      const user = await app.accounts.user(request);
      if (!user) return reply.header('cache-control', 'no-store').redirect('/connexion', 303);
      const refused = options.admit?.(user, reply);
      if (refused) return refused;
      request.areaUser = user;
    });
    routes(scope);
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user of an area's request (set by registerSignedInArea's hook). */
    areaUser?: User;
  }
}
