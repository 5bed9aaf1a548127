import { retryFailedJobs } from '../../jobs/inspect.js';
import { type Command, UsageError } from '../command.js';

export const jobsRetry: Command = {
  summary: 'Put failed jobs back in the queue (given ids, or --all), with a fresh count of tries.',
  usage: 'jobs:retry ID… | --all',
  options: { all: { type: 'boolean' } },
  positionals: true,
  async run(database, values, positionals) {
    const all = values.all === true;
    if (all === positionals.length > 0) throw new UsageError('give the ids of failed jobs (see jobs:list), or --all');
    const ids = positionals.map(Number);
    if (ids.some((id) => !Number.isSafeInteger(id) || id < 1))
      throw new UsageError('job ids are whole numbers (see jobs:list)');
    const n = await retryFailedJobs(database.db, all ? undefined : ids);
    return `${n} failed job${n === 1 ? '' : 's'} put back in the queue; a running instance's worker takes them at its next poll.`;
  },
};
