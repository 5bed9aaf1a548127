import { listApiKeys } from '../../admin/api-keys.js';
import type { Command } from '../command.js';

export const apikeyList: Command = {
  summary: 'List the API keys (id, role, centre, name, created, revoked); never the keys themselves.',
  usage: 'apikey:list',
  async run(database) {
    const keys = await listApiKeys(database.db);
    if (keys.length === 0) return 'No API key yet: npm run cli -- apikey:create --role admin --name ops';
    return keys
      .map(
        (k) =>
          `${k.id}  ${k.role.padEnd(7)}  ${(k.centreId ?? '-').padEnd(36)}  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}  created ${k.createdAt.toISOString()}  ${k.name}`,
      )
      .join('\n');
  },
};
