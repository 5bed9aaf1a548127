import { listSigningKeys } from '../../auth/signing-keys.js';
import { systemClock } from '../../core/clock.js';
import type { Command } from '../command.js';

export const keysList: Command = {
  summary: 'List the access-token signing keys: active, retiring (still verifying) or retired.',
  usage: 'keys:list',
  async run(database) {
    const now = systemClock.now();
    const keys = await listSigningKeys(database.db);
    if (keys.length === 0) return 'No signing key yet: the server creates one at its first start.';
    return keys
      .map((k) => {
        const status =
          k.retiresAt === null
            ? 'active'
            : k.retiresAt > now
              ? `retiring, verifies until ${k.retiresAt.toISOString()}`
              : `retired ${k.retiresAt.toISOString()}`;
        return `${k.kid}  created ${k.createdAt.toISOString()}  ${status}`;
      })
      .join('\n');
  },
};
