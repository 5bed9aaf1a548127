import { DEMO_SEED } from '../../catalogue/demo/generate.js';
import { loadDemoCatalogue } from '../../catalogue/demo/load.js';
import { dateIn, systemClock } from '../../core/clock.js';
import { type Command, DATE, UsageError } from '../command.js';

export const demo: Command = {
  summary:
    'Replace the whole catalogue with a freshly generated demo catalogue (--scale 10: ten times the centres and sessions).',
  usage: 'demo [--seed TEXT] [--today YYYY-MM-DD] [--scale N]',
  options: { seed: { type: 'string' }, today: { type: 'string' }, scale: { type: 'string' } },
  async run(database, values) {
    const today = typeof values.today === 'string' ? values.today : dateIn(systemClock.now());
    if (!DATE.test(today)) throw new UsageError('--today must be a date in YYYY-MM-DD form');
    const seed = typeof values.seed === 'string' ? values.seed : DEMO_SEED;
    const scale = values.scale === undefined ? 1 : Number(values.scale);
    if (!Number.isInteger(scale) || scale < 1 || scale > 50)
      throw new UsageError('--scale must be a whole number from 1 to 50');
    const result = await loadDemoCatalogue(database.db, { today, seed, scale });
    return `Demo catalogue loaded (seed "${seed}", from ${today}${scale > 1 ? `, scale ${scale}` : ''}): ${result.centres} centres, ${result.sessions} sessions.`;
  },
};
