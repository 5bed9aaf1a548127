import { sendSignInLink } from '../../accounts/sign-in.js';
import { disableUser, grantRole, listUsers, normaliseEmail, type UserRole } from '../../accounts/users.js';
import { systemClock } from '../../core/clock.js';
import { type Command, DataError, UsageError } from '../command.js';
import { findCentre } from '../find-centre.js';

function emailOf(value: string | boolean | undefined): string {
  const email = normaliseEmail(value);
  if (!email) throw new UsageError('--email must be an email address, e.g. --email nom@exemple.fr');
  return email;
}

export const usersCreate: Command = {
  summary:
    'Give an email a role, making its user if needed: admin (platform operator), or owner / staff of one centre. They sign in at /connexion.',
  usage: 'users:create --email EMAIL --role admin|owner|staff [--centre SLUG|ID]',
  options: { email: { type: 'string' }, role: { type: 'string' }, centre: { type: 'string' } },
  async run(database, values) {
    const email = emailOf(values.email);
    const role = values.role as UserRole;
    if (role !== 'admin' && role !== 'owner' && role !== 'staff')
      throw new UsageError('--role must be admin, owner or staff');
    let centreId: string | undefined;
    if (role === 'admin') {
      if (values.centre !== undefined) throw new UsageError('--centre is for the owner and staff roles');
    } else {
      if (typeof values.centre !== 'string') throw new UsageError(`the role ${role} needs --centre SLUG|ID`);
      centreId = (await findCentre(database, values.centre))?.id;
      if (!centreId) throw new UsageError(`No centre has the slug or id "${values.centre}".`);
    }
    const user = await grantRole(database.db, email, role, centreId);
    return `${user.email}: ${describeRoles(user)}${user.disabled ? ' (disabled)' : ''}.`;
  },
};

function describeRoles(user: { admin: boolean; memberships: { centreSlug: string; role: string }[] }): string {
  const roles = [...(user.admin ? ['admin'] : []), ...user.memberships.map((m) => `${m.role} of ${m.centreSlug}`)];
  return roles.length ? roles.join(', ') : 'no role';
}

export const usersList: Command = {
  summary: 'List the users who can sign in, with their roles.',
  usage: 'users:list',
  async run(database) {
    const users = await listUsers(database.db);
    if (users.length === 0)
      return 'No users. Make the first with: npm run cli -- users:create --email EMAIL --role admin';
    return users.map((u) => `${u.email}\t${describeRoles(u)}${u.disabled ? '\tdisabled' : ''}`).join('\n');
  },
};

export const usersDisable: Command = {
  summary: 'Disable a user: their open sessions stop working on every instance at once, and they cannot sign in.',
  usage: 'users:disable --email EMAIL',
  options: { email: { type: 'string' } },
  async run(database, values) {
    const email = emailOf(values.email);
    if (!(await disableUser(database.db, email, systemClock.now())))
      throw new DataError(`No user has the email ${email}.`);
    return `${email} is disabled; their sessions have ended.`;
  },
};

export const loginLink: Command = {
  summary:
    'Print a one-time sign-in link for an email (valid 15 minutes): for the first admin, and for machines without SMTP_URL. Nothing is emailed.',
  usage: 'login-link --email EMAIL',
  options: { email: { type: 'string' } },
  async run(database, values, _positionals, config) {
    const email = emailOf(values.email);
    const url = await sendSignInLink(database.db, email, systemClock.now(), {
      baseUrl: config.publicBaseUrl,
      platformName: config.platformName,
      mail: false,
    });
    return [`Sign-in link for ${email}, valid 15 minutes, once:`, '', `  ${url}`].join('\n');
  },
};
