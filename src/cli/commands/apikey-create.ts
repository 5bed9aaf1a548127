import { createApiKey } from '../../admin/api-keys.js';
import { CLI_ACTOR } from '../../history/actor.js';
import { type Command, UsageError } from '../command.js';
import { findCentre } from '../find-centre.js';

export const apikeyCreate: Command = {
  summary:
    'Create an API key for the admin API: an operator key (every centre) or a partner key (one centre). Shown once.',
  usage: 'apikey:create --role admin|partner [--centre SLUG|ID] --name TEXT',
  options: { role: { type: 'string' }, centre: { type: 'string' }, name: { type: 'string' } },
  async run(database, values) {
    const role = values.role;
    if (role !== 'admin' && role !== 'partner') throw new UsageError('--role must be admin or partner');
    const name = typeof values.name === 'string' ? values.name.trim() : '';
    if (!name || name.length > 100) throw new UsageError('--name must be a text of 1 to 100 characters');
    let centreId: string | null = null;
    if (role === 'partner') {
      if (typeof values.centre !== 'string') throw new UsageError('a partner key needs --centre SLUG|ID');
      const centre = await findCentre(database, values.centre);
      if (!centre) throw new UsageError(`No centre has the slug or id "${values.centre}".`);
      centreId = centre.id;
    } else if (values.centre !== undefined) throw new UsageError('--centre is for partner keys only');
    const { key, identity } = await createApiKey(database.db, { name, role, centreId }, CLI_ACTOR);
    return [
      `Created ${role} key ${identity.id} ("${name}")${centreId ? ` for centre ${centreId}` : ''}.`,
      'The key is shown once; store it now (only its hash is kept):',
      '',
      `  ${key}`,
      '',
      'Send it as: Authorization: Bearer <key>',
    ].join('\n');
  },
};
