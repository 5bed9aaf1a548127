import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { centreTeam, inviteStaff, removeMember } from '../../accounts/team.js';
import { type Membership, normaliseEmail } from '../../accounts/users.js';
import { UUID } from '../../core/uuid.js';
import { userActor } from '../../history/actor.js';
import { sendsMail } from '../../mail/transport.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { NOT_YOURS, refusalPage, requirePart } from '../access.js';
import { type AreaContext, areaUser, GUARD_REFUSED } from '../context.js';
import { TeamPage, type TeamPageProps, teamPath } from '../team-page.js';

const EMAIL_INVALID = 'Saisissez une adresse e-mail complète, par exemple prenom.nom@exemple.fr.';
const LAST_OWNER =
  'Vous êtes le seul responsable de ce centre : vous ne pouvez pas vous retirer. L’exploitant du service peut nommer un autre responsable (en ligne de commande) ; ensuite, l’un de vous pourra retirer l’autre.';

/**
 * The centre's team, its owner's alone (access.tsx): the members and their role; invite a staff
 * member by email (accounts/team.ts: the role given and the sign-in link emailed through the
 * outbox in one transaction); remove a member, which takes the centre from their open sessions at
 * their next request on every instance. Owners are named by the command line only.
 */
export function teamRoute(app: FastifyInstance, context: AreaContext): void {
  const db = app.database.db;
  const site = siteInfo(app.config);
  const mail = sendsMail(app.config.mail);

  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    membership: Membership,
    status: number,
    extra: Partial<TeamPageProps> = {},
  ) {
    return privateHtml(
      reply,
      status,
      renderPage(
        <TeamPage
          site={site}
          membership={membership}
          userId={areaUser(request).id}
          formToken={app.accounts.guard.tokenFor(request, reply)}
          members={await centreTeam(db, membership.centreId)}
          {...extra}
        />,
      ),
    );
  }

  function owner(request: FastifyRequest, reply: FastifyReply): Membership | undefined {
    const { centreId } = request.params as { centreId: string };
    return requirePart(request, reply, areaUser(request), centreId, 'team');
  }

  app.get('/espace-centre/centres/:centreId/equipe', { schema: { hide: true } }, async (request, reply) => {
    const membership = owner(request, reply);
    if (!membership) return reply;
    const notice =
      (request.query as Record<string, unknown>).retire === '1'
        ? 'Membre retiré : il n’a plus accès à ce centre, dès maintenant et sur tous ses appareils.'
        : undefined;
    return page(request, reply, membership, 200, { notice });
  });

  app.post('/espace-centre/centres/:centreId/equipe', { schema: { hide: true } }, async (request, reply) => {
    const membership = owner(request, reply);
    if (!membership) return reply;
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!context.formOk(request, form)) return page(request, reply, membership, 403, { problem: GUARD_REFUSED });
    const typed = typeof form.email === 'string' ? form.email : '';
    const email = normaliseEmail(typed);
    if (!email)
      return page(request, reply, membership, 400, {
        email: typed,
        errors: [{ field: 'email', message: EMAIL_INVALID }],
      });
    const user = areaUser(request);
    const result = await inviteStaff(
      db,
      {
        centreId: membership.centreId,
        centreName: membership.centreName,
        email,
        invitedBy: user.email,
        now: app.clock.now(),
      },
      { baseUrl: site.baseUrl, platformName: site.name, mail, actor: userActor(user) },
    );
    if (result.kind === 'already-member')
      return page(request, reply, membership, 409, {
        problem: `${email} fait déjà partie de l’équipe (${result.role === 'owner' ? 'responsable' : 'équipe'}) : rien n’a changé.`,
      });
    if (result.mailed) app.jobs.wake();
    request.log.info({ centre: membership.centreId, user: user.id }, 'centre area: staff member invited');
    return page(request, reply, membership, 201, {
      notice: result.mailed
        ? `${email} fait maintenant partie de l’équipe : un e-mail lui a été envoyé avec un lien de connexion, valable 15 minutes.`
        : `${email} fait maintenant partie de l’équipe. Ce service n’envoie pas d’e-mail (aucun serveur d’envoi configuré) : demandez-lui de se connecter avec cette adresse depuis la page de connexion.`,
    });
  });

  app.post(
    '/espace-centre/centres/:centreId/equipe/:userId/retirer',
    { schema: { hide: true } },
    async (request, reply) => {
      const membership = owner(request, reply);
      if (!membership) return reply;
      const { userId } = request.params as { userId: string };
      const form = (request.body ?? {}) as Record<string, unknown>;
      const members = await centreTeam(db, membership.centreId);
      // Someone not of this centre, or no one: the same answer, so that ids cannot be probed.
      if (!UUID.test(userId) || !members.some((m) => m.userId === userId))
        return refusalPage(request, reply, 404, 'Page introuvable', NOT_YOURS);
      if (!context.formOk(request, form)) return page(request, reply, membership, 403, { problem: GUARD_REFUSED });
      const user = areaUser(request);
      const result = await removeMember(db, membership.centreId, userId, userActor(user));
      if (result === 'last-owner') return page(request, reply, membership, 409, { problem: LAST_OWNER });
      if (result === 'not-member') return refusalPage(request, reply, 404, 'Page introuvable', NOT_YOURS);
      request.log.info({ centre: membership.centreId, user: user.id, removed: userId }, 'centre area: member removed');
      // An owner who removed themselves has no access to the team page any more.
      const to = userId === user.id ? '/espace-centre' : `${teamPath(membership.centreId)}?retire=1`;
      return reply.header('cache-control', 'no-store').redirect(to, 303);
    },
  );
}
