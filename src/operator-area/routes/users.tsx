import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { disableUser, listUsers, normaliseEmail, type User } from '../../accounts/users.js';
import type { SiteInfo } from '../../web/layout.js';
import { GUARD_REFUSED, type OperatorContext, operator } from '../context.js';
import { Csrf, type Messages, OperatorLayout, PATHS } from '../layout.js';

const ROLES = { owner: 'responsable', staff: 'équipe' } as const;

function UsersPage(props: { site: SiteInfo; users: User[]; me: string; formToken: string; messages?: Messages }) {
  return (
    <OperatorLayout site={props.site} title="Utilisateurs" messages={props.messages}>
      <p>
        Qui peut se connecter. Un utilisateur désactivé est déconnecté partout à sa requête suivante et ne peut plus
        recevoir de lien de connexion. Pour en ajouter : <code>npm run cli -- users:create</code>.
      </p>
      <ul class="area-sessions">
        {props.users.map((u) => (
          <li>
            <strong class="break">{u.email}</strong>
            {u.admin ? ' · exploitant' : ''}
            {u.disabled ? ' · désactivé' : ''}
            <br />
            {u.memberships.length === 0
              ? 'Aucun centre'
              : u.memberships.map((m) => `${m.centreName} (${ROLES[m.role]})`).join(', ')}
            {!u.disabled && u.email !== props.me ? (
              <form method="post" action={PATHS.disableUser} class="inline">
                <Csrf token={props.formToken} />
                <input type="hidden" name="email" value={u.email} />{' '}
                <button type="submit" class="danger" aria-label={`Désactiver ${u.email}`}>
                  Désactiver
                </button>
              </form>
            ) : null}
          </li>
        ))}
      </ul>
    </OperatorLayout>
  );
}

/** The users (listUsers) and disabling one (disableUser, as `users:disable` does); an operator does not disable themself here. */
export function usersRoutes(app: FastifyInstance, context: OperatorContext): void {
  const db = app.database.db;
  const page = async (request: FastifyRequest, reply: FastifyReply, status: number, messages: Messages = {}) =>
    context.page(
      reply,
      status,
      <UsersPage
        site={context.site}
        users={await listUsers(db)}
        me={operator(request).email}
        formToken={context.token(request, reply)}
        messages={messages}
      />,
    );

  app.get(PATHS.users, async (request, reply) => page(request, reply, 200));

  app.post(PATHS.disableUser, async (request, reply) => {
    const me = operator(request);
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form)) return page(request, reply, 403, { problem: GUARD_REFUSED });
    const email = normaliseEmail(form.email);
    if (email === me.email)
      return page(request, reply, 400, { problem: 'Vous ne pouvez pas désactiver votre propre compte ici.' });
    if (!email || !(await disableUser(db, email, app.clock.now())))
      return page(request, reply, 404, { problem: 'Aucun utilisateur n’a cette adresse : rien n’a été modifié.' });
    return page(request, reply, 200, { notice: `${email} est désactivé : ses sessions sont fermées.` });
  });
}
