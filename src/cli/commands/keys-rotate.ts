import { rotateSigningKey } from '../../auth/signing-keys.js';
import { loadConfig } from '../../config.js';
import { systemClock } from '../../core/clock.js';
import type { Command } from '../command.js';

export const keysRotate: Command = {
  summary: 'Add a new access-token signing key; the previous one keeps verifying until its last token expired.',
  usage: 'keys:rotate',
  async run(database) {
    const now = systemClock.now();
    const result = await rotateSigningKey(database.db, now);
    const lines = [`New signing key ${result.kid} is active. Running instances sign with it within a minute.`];
    for (const k of result.retiring)
      lines.push(`Key ${k.kid} stops signing and stays published until ${k.retiresAt?.toISOString()}.`);
    if (result.deleted.length > 0) lines.push(`Deleted keys retired earlier: ${result.deleted.join(', ')}.`);
    if (loadConfig().signingKey)
      lines.push('Note: SIGNING_KEY is set, so instances keep signing with that key; database keys only verify.');
    return lines.join('\n');
  },
};
