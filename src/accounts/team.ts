import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { centreMembers, users } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import type { Actor } from '../history/actor.js';
import { recordChanges } from '../history/record.js';
import { queueMail } from '../mail/outbox.js';
import { signInLinkPath } from './sign-in.js';
import { createSignInLink, LINK_LIFETIME_MS } from './sign-in-links.js';
import { type CentreRole, userIdForEmail } from './users.js';

/** One member of a centre's team. */
export interface TeamMember {
  userId: string;
  email: string;
  role: CentreRole;
  since: Date;
  disabled: boolean;
}

/** A centre's members, owners first, then by email. */
export async function centreTeam(db: Db, centreId: string): Promise<TeamMember[]> {
  const rows = await db
    .select({
      userId: centreMembers.userId,
      email: users.email,
      role: centreMembers.role,
      since: centreMembers.createdAt,
      disabledAt: users.disabledAt,
    })
    .from(centreMembers)
    .innerJoin(users, eq(users.id, centreMembers.userId))
    .where(eq(centreMembers.centreId, centreId))
    .orderBy(sql`${centreMembers.role} = 'owner' desc`, asc(users.email));
  return rows.map((r) => ({
    userId: r.userId,
    email: r.email,
    role: r.role as CentreRole,
    since: r.since,
    disabled: r.disabledAt !== null,
  }));
}

export type InviteResult = { kind: 'invited'; mailed: boolean } | { kind: 'already-member'; role: CentreRole };

/**
 * Makes `email` staff of the centre (the user made if needed) and, with mail, emails them the
 * normal sign-in link (one-time, 15 minutes) saying who invited them to which centre: one
 * transaction, so the email goes out if and only if the role was given, and the centre's history
 * says who gave it (entity `member`, the user's id, field `role`). An existing member keeps their role.
 */
export async function inviteStaff(
  db: Db,
  invite: {
    centreId: string;
    centreName: string;
    email: string;
    invitedBy: string;
    now: Date;
  },
  options: { baseUrl: string; platformName: string; mail: boolean; actor: Actor },
): Promise<InviteResult> {
  return db.transaction(async (t) => {
    const tx = t as Tx;
    const userId = await userIdForEmail(tx, invite.email);
    const [added] = await tx
      .insert(centreMembers)
      .values({ userId, centreId: invite.centreId, role: 'staff' })
      .onConflictDoNothing({ target: [centreMembers.userId, centreMembers.centreId] })
      .returning({ role: centreMembers.role });
    if (!added) {
      const [member] = await tx
        .select({ role: centreMembers.role })
        .from(centreMembers)
        .where(and(eq(centreMembers.userId, userId), eq(centreMembers.centreId, invite.centreId)));
      return { kind: 'already-member', role: (member?.role ?? 'staff') as CentreRole };
    }
    await recordChanges(tx, options.actor, [
      {
        centreId: invite.centreId,
        entity: 'member',
        entityId: userId,
        field: 'role',
        oldValue: null,
        newValue: 'staff',
      },
    ]);
    if (!options.mail) return { kind: 'invited', mailed: false };
    const token = await createSignInLink(tx, invite.email, invite.now);
    const url = `${options.baseUrl}${signInLinkPath(token)}`;
    await queueMail(
      tx,
      {
        to: invite.email,
        subject: `${invite.centreName} vous invite dans son équipe · ${options.platformName}`,
        text: [
          'Bonjour,',
          '',
          `${invite.invitedBy} vous a ajouté à l’équipe du centre ${invite.centreName} sur ${options.platformName} : vous pourrez y tenir à jour ses stages, leurs places et leurs réservations.`,
          '',
          'Pour vous connecter, ouvrez ce lien puis appuyez sur « Me connecter » :',
          url,
          '',
          `Il est valable ${LINK_LIFETIME_MS / 60_000} minutes et ne sert qu’une fois. Ensuite, demandez un nouveau lien avec cette adresse e-mail sur ${options.baseUrl}/connexion.`,
          'Si vous ne connaissez pas ce centre, ignorez ce message.',
        ].join('\n'),
      },
      { secret: true },
    );
    return { kind: 'invited', mailed: true };
  });
}

export type RemoveResult = 'removed' | 'not-member' | 'last-owner';

/**
 * Ends a member's role in the centre. Their open sessions lose the centre at their next request,
 * on every instance (memberships are read with the session). The centre's last owner cannot be
 * removed: the centre's owners are locked first, so that two owners removing each other at once
 * cannot leave none. Written in the centre's history, in the same transaction, as `actor`'s.
 */
export async function removeMember(db: Db, centreId: string, userId: string, actor: Actor): Promise<RemoveResult> {
  return db.transaction(async (t) => {
    const tx = t as Tx;
    const owners = await tx
      .select({ userId: centreMembers.userId })
      .from(centreMembers)
      .where(and(eq(centreMembers.centreId, centreId), eq(centreMembers.role, 'owner')))
      .for('update');
    if (owners.length === 1 && owners[0]?.userId === userId) return 'last-owner';
    const removed = await tx
      .delete(centreMembers)
      .where(and(eq(centreMembers.centreId, centreId), eq(centreMembers.userId, userId)))
      .returning({ userId: centreMembers.userId, role: centreMembers.role });
    const [gone] = removed;
    if (!gone) return 'not-member';
    await recordChanges(tx, actor, [
      { centreId, entity: 'member', entityId: userId, field: 'role', oldValue: gone.role, newValue: null },
    ]);
    return 'removed';
  });
}
