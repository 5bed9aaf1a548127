import { exportCatalogue } from '../../admin/import/export.js';
import { type Command, UsageError } from '../command.js';

export const exportCommand: Command = {
  summary: 'Write the whole catalogue to standard output, in the import format (importing it back changes nothing).',
  usage: 'export [--format json|ndjson|csv]',
  options: { format: { type: 'string' } },
  async run(database, values) {
    const format = values.format ?? 'json';
    if (format !== 'json' && format !== 'ndjson' && format !== 'csv')
      throw new UsageError('--format must be json, ndjson or csv');
    const text = await exportCatalogue(database.db, format);
    // Wait until the pipe took it all: the process exits right after, and a pipe writes asynchronously.
    await new Promise<void>((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())));
    return '';
  },
};
