import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseImport } from '../../admin/import/parse.js';
import { type ImportCounts, ImportRefused } from '../../admin/import/records.js';
import { importBatch } from '../../admin/import/write.js';
import { type Command, DataError, UsageError } from '../command.js';

function formatOf(file: string): string | undefined {
  return extname(file).slice(1).toLowerCase() || undefined;
}

const line = (what: string, c: ImportCounts) =>
  `${what}: ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged`;

export const importFile: Command = {
  summary: 'Import centres and sessions from a file (JSON, NDJSON or CSV), upserted by id, all or nothing.',
  usage: 'import FILE [--format json|ndjson|csv] [--dry-run]',
  options: { format: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  positionals: true,
  async run(database, values, positionals) {
    const [file] = positionals;
    if (!file || positionals.length > 1) throw new UsageError('give one file to import');
    const format = (values.format ?? formatOf(file)) as string;
    if (format !== 'json' && format !== 'ndjson' && format !== 'csv')
      throw new UsageError('--format must be json, ndjson or csv (or name the file .json, .ndjson or .csv)');
    const text = await readFile(file, 'utf8');
    try {
      const result = await importBatch(
        database.db,
        parseImport(text, format),
        { centreId: null },
        { dryRun: values['dry-run'] === true },
      );
      return [
        result.dryRun ? 'Dry run: the file is valid; nothing was written.' : 'Imported.',
        line('centres', result.centres),
        line('sessions', result.sessions),
      ].join('\n');
    } catch (err) {
      // The CLI's own format for a refused batch: one line per issue.
      if (!(err instanceof ImportRefused)) throw err;
      const lines = err.errors.map(
        (i) =>
          `  record ${i.index}${i.line ? ` (line ${i.line})` : ''}${i.id ? ` ${i.id}` : ''}: ${i.name}: ${i.reason}`,
      );
      throw new DataError(`${err.message}\n${lines.join('\n')}`);
    }
  },
};
