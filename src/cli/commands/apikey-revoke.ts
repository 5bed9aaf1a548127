import { revokeApiKey } from '../../admin/api-keys.js';
import { systemClock } from '../../core/clock.js';
import { CLI_ACTOR } from '../../history/actor.js';
import { type Command, UsageError } from '../command.js';

export const apikeyRevoke: Command = {
  summary: 'Revoke an API key, at once, on every instance.',
  usage: 'apikey:revoke ID',
  positionals: true,
  async run(database, _values, positionals) {
    const [id] = positionals;
    if (!id || positionals.length > 1) throw new UsageError('give the id of one key (see apikey:list)');
    if (!(await revokeApiKey(database.db, id, systemClock.now(), {}, CLI_ACTOR)))
      throw new UsageError(`No active key has the id ${id}.`);
    return `Key ${id} revoked.`;
  },
};
