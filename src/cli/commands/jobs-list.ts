import { failedJobs } from '../../jobs/inspect.js';
import { jobStats } from '../../jobs/store.js';
import type { Command } from '../command.js';

const duration = (seconds: number) =>
  seconds < 120
    ? `${Math.round(seconds)} s`
    : seconds < 7200
      ? `${Math.round(seconds / 60)} min`
      : `${Math.round(seconds / 3600)} h`;

export const jobsList: Command = {
  summary: 'The background jobs (emails, …): how many wait or failed, by kind; the failed ones, without their content.',
  usage: 'jobs:list',
  async run(database) {
    const stats = await jobStats(database.db);
    if (stats.length === 0) return 'No job waits and none failed.';
    const lines = stats
      .sort((a, b) => a.state.localeCompare(b.state) || a.kind.localeCompare(b.kind))
      .map(
        (s) =>
          `${s.state.padEnd(8)} ${s.kind.padEnd(16)} ${String(s.count).padStart(6)}   oldest ${duration(s.oldestAgeSeconds)}`,
      );
    const failed = await failedJobs(database.db);
    if (failed.length > 0) {
      lines.push('', 'Failed jobs, newest first (jobs:retry ID… puts them back):');
      for (const j of failed)
        lines.push(
          `  ${String(j.id).padStart(8)}  ${j.kind.padEnd(16)} ${j.attempts} tries  ${j.lastError ?? '-'}  failed ${j.failedAt?.toISOString() ?? '-'}${j.retryable ? '' : '  (secret: erased, cannot be retried)'}`,
        );
    }
    return lines.join('\n');
  },
};
