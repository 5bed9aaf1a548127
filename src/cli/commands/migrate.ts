import type { Command } from '../command.js';

/** The migrations run before every command (index.ts); this one only says so. */
export const migrate: Command = {
  summary: 'Apply pending database migrations (the server also does this at start).',
  usage: 'migrate',
  async run() {
    return 'Migrations applied.';
  },
};
