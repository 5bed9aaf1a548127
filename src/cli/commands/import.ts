import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseImport } from '../../admin/import/parse.js';
import { type ImportCounts, ImportRefused } from '../../admin/import/records.js';
import { importBatch } from '../../admin/import/write.js';
import { systemClock } from '../../core/clock.js';
import { CLI_ACTOR } from '../../history/actor.js';
import { type Command, DataError, UsageError } from '../command.js';

function formatOf(file: string): string | undefined {
  return extname(file).slice(1).toLowerCase() || undefined;
}

const line = (what: string, c: ImportCounts) =>
  `${what}: ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged`;

/** --max-records, or IMPORT_MAX_RECORDS as the server reads it. */
function maxRecordsOf(value: string | boolean | undefined, configured: number): number {
  if (value === undefined) return configured;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError('--max-records must be a whole number, at least 1');
  return n;
}

/** The CLI's own format for a refused batch: one line per issue listed, and how many there are in all. */
function refusal(err: ImportRefused): DataError {
  const lines = err.errors.map(
    (i) => `  record ${i.index}${i.line ? ` (line ${i.line})` : ''}${i.id ? ` ${i.id}` : ''}: ${i.name}: ${i.reason}`,
  );
  const more = (err.errorCount ?? 0) - err.errors.length;
  if (more > 0) lines.push(`  … and ${more} more issue(s)`);
  return new DataError([err.message, ...lines].join('\n'));
}

export const importFile: Command = {
  summary: 'Import centres and sessions from a file (JSON, NDJSON or CSV), upserted by id, all or nothing.',
  usage: 'import FILE [--format json|ndjson|csv] [--dry-run] [--max-records N (default IMPORT_MAX_RECORDS)]',
  options: { format: { type: 'string' }, 'dry-run': { type: 'boolean' }, 'max-records': { type: 'string' } },
  positionals: true,
  async run(database, values, positionals, config) {
    const [file] = positionals;
    if (!file || positionals.length > 1) throw new UsageError('give one file to import');
    const format = (values.format ?? formatOf(file)) as string;
    if (format !== 'json' && format !== 'ndjson' && format !== 'csv')
      throw new UsageError('--format must be json, ndjson or csv (or name the file .json, .ndjson or .csv)');
    const limits = { maxRecords: maxRecordsOf(values['max-records'], config.importMaxRecords) };
    await access(file);
    try {
      const records = await parseImport(createReadStream(file), format, limits);
      const result = await importBatch(
        database.db,
        records,
        { centreId: null },
        { dryRun: values['dry-run'] === true, clock: systemClock, actor: CLI_ACTOR },
      );
      return [
        result.dryRun ? 'Dry run: the file is valid; nothing was written.' : 'Imported.',
        line('centres', result.centres),
        line('sessions', result.sessions),
      ].join('\n');
    } catch (err) {
      if (!(err instanceof ImportRefused)) throw err;
      throw refusal(err);
    }
  },
};
