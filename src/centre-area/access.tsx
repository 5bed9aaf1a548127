import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CentreRole, Membership, User } from '../accounts/users.js';
import { Layout, siteInfo } from '../web/layout.js';
import { privateHtml } from '../web/private-page.js';
import { renderPage } from '../web/render.js';

/**
 * Who may do what in a centre's area (docs/accounts.md, "The centres' area"): the owner
 * everything of the centre; staff the day-to-day (sessions, places, bookings,
 * attendance, convocations); webhooks, like the team, the
 * API keys and the centre's details, are the owner's alone. Each page or form names its part.
 */
export const ROLE_MATRIX = {
  sessions: ['owner', 'staff'],
  places: ['owner', 'staff'],
  /** A session's bookings: confirm, cancel, mark paid. */
  bookings: ['owner', 'staff'],
  /** Present or absent per half-day, the attendance sheet, the list of those who attended. */
  attendance: ['owner', 'staff'],
  /** The joining instructions emailed to every person booked. */
  convocation: ['owner', 'staff'],
  /** A session's price, times, group size and prefecture declaration. */
  sessionEdit: ['owner', 'staff'],
  /** A file's sessions, previewed by the import's dry run, then applied. */
  import: ['owner', 'staff'],
  /**
   * Who changed what and when, old → new (the centre, its sessions, its reservations by reference):
   * staff too, since they keep the places and bookings that others (a key, a colleague) also change.
   */
  history: ['owner', 'staff'],
  webhooks: ['owner'],
  details: ['owner'],
  team: ['owner'],
  keys: ['owner'],
} as const satisfies Record<string, readonly CentreRole[]>;
export type AreaPart = keyof typeof ROLE_MATRIX;

/** The user's membership of this centre, if any (an id that is no centre's simply matches none). */
export function membershipFor(user: User, centreId: string): Membership | undefined {
  return user.memberships.find((m) => m.centreId === centreId);
}

/** Whether this role may use this part of a centre's area. */
export function may(role: CentreRole, part: AreaPart): boolean {
  return (ROLE_MATRIX[part] as readonly CentreRole[]).includes(role);
}

export const NOT_YOURS = 'Cette page n’existe pas, ou elle concerne un centre dont vous n’êtes pas membre.';
export const OWNER_ONLY = 'Cette page est réservée au responsable du centre.';

/**
 * The user's membership of the centre when their role may use `part`; otherwise answers the
 * refusal page and returns undefined: 404 for a centre that is not theirs or does not exist (the
 * same answer, so that ids cannot be probed), 403 for their centre's part their role may not use.
 */
export function requirePart(
  request: FastifyRequest,
  reply: FastifyReply,
  user: User,
  centreId: string,
  part: AreaPart,
): Membership | undefined {
  const membership = membershipFor(user, centreId);
  if (!membership) {
    refusalPage(request, reply, 404, 'Page introuvable', NOT_YOURS);
    return undefined;
  }
  if (!may(membership.role, part)) {
    refusalPage(request, reply, 403, 'Accès réservé', OWNER_ONLY);
    return undefined;
  }
  return membership;
}

/** A refusal in the area: what happened, and the way back to the dashboard. */
export function refusalPage(request: FastifyRequest, reply: FastifyReply, status: number, title: string, text: string) {
  return privateHtml(
    reply,
    status,
    renderPage(
      <Layout site={siteInfo(request.server.config)} title={title} description={text} noindex>
        <h1>{title}</h1>
        <p>{text}</p>
        <p>
          <a href="/espace-centre">Retour à l’espace centre</a>
        </p>
      </Layout>,
    ),
  );
}
