import type { Db } from '../db/connect.js';
import type { Tx } from '../db/write.js';
import { queueMail } from '../mail/outbox.js';
import { withReturnPath } from './return-path.js';
import { closeSession, openSession } from './sessions.js';
import { createSignInLink, LINK_LIFETIME_MS, spendSignInLink } from './sign-in-links.js';
import { type User, userById, userIdForEmail } from './users.js';

/** The path of a sign-in link's page. */
export function signInLinkPath(token: string): string {
  return `/connexion/lien/${token}`;
}

/**
 * Sends a sign-in link to `email` through the outbox, whether or not a user has that email: the
 * same rows are written and the same answer given either way, so that neither the page nor its
 * timing tells who has an account. Returns the link (the CLI prints it; the page never shows it).
 */
export async function sendSignInLink(
  db: Db,
  email: string,
  now: Date,
  options: { baseUrl: string; platformName: string; mail: boolean; returnPath?: string | undefined },
): Promise<string> {
  return db.transaction(async (tx) => {
    const token = await createSignInLink(tx as Tx, email, now);
    const url = `${options.baseUrl}${withReturnPath(signInLinkPath(token), options.returnPath)}`;
    if (options.mail)
      await queueMail(
        tx as Tx,
        {
          to: email,
          subject: `Votre lien de connexion · ${options.platformName}`,
          text: [
            'Bonjour,',
            '',
            `Pour vous connecter à ${options.platformName}, ouvrez ce lien puis appuyez sur « Me connecter » :`,
            url,
            '',
            `Il est valable ${LINK_LIFETIME_MS / 60_000} minutes et ne sert qu’une fois.`,
            'Si vous n’avez rien demandé, ignorez ce message : personne ne peut se connecter sans ce lien.',
          ].join('\n'),
        },
        { secret: true },
      );
    return url;
  });
}

export type SignInResult =
  | { kind: 'signed-in'; sessionId: string; home: string }
  | { kind: 'invalid' }
  | { kind: 'disabled' };

/** The centres' area: where a sign-in leads a member of a centre, and anyone with no role. */
export const AREA_HOME = '/espace-centre';
/** The operators' area: where an admin with no centre role lands. */
export const OPERATOR_HOME = '/administration';
/** The people's area: where anyone with no centre or operator role lands (their reservations). */
export const PEOPLE_HOME = '/mon-espace';

/**
 * Where a user lands after signing in: anyone with a centre role (an admin too: the centres' area
 * links to the operators') in the centres' area; an admin with no centre role in the operators'
 * area; anyone else (a person who booked) in the people's area.
 */
export function homeOf(user: Pick<User, 'admin' | 'memberships'>): string {
  if (user.memberships.length > 0) return AREA_HOME;
  return user.admin ? OPERATOR_HOME : PEOPLE_HOME;
}

/**
 * Spends a link and opens a session for its email's user (made now if it is the email's first
 * sign-in), closing the session the browser had, so that every sign-in starts a new session id.
 */
export async function signInWithLink(
  db: Db,
  token: string,
  now: Date,
  previousSessionId: string | undefined,
): Promise<SignInResult> {
  const result = await db.transaction(async (tx): Promise<SignInResult> => {
    const email = await spendSignInLink(tx as Tx, token, now);
    if (!email) return { kind: 'invalid' };
    const userId = await userIdForEmail(tx as Tx, email);
    const user = await userById(tx as Tx, userId);
    // The link stays spent: a disabled user's links are worth nothing.
    if (user?.disabled) return { kind: 'disabled' };
    return {
      kind: 'signed-in',
      sessionId: await openSession(tx as Tx, userId, now),
      home: user ? homeOf(user) : PEOPLE_HOME,
    };
  });
  if (result.kind === 'signed-in' && previousSessionId) await closeSession(db, previousSessionId);
  return result;
}
