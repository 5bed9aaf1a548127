import { parseCsvRecords } from './parse-csv.js';
import { parseJsonRecords } from './parse-json.js';
import { parseNdjson } from './parse-ndjson.js';
import type { ImportFormat, ImportLimits, ImportRecord } from './records.js';

/**
 * Reads a batch in one of the three formats into records (not yet checked), a slice at a time,
 * refusing it (413) as soon as it holds more than `limits.maxRecords`.
 */
export function parseImport(text: string, format: ImportFormat, limits: ImportLimits): Promise<ImportRecord[]> {
  if (format === 'csv') return parseCsvRecords(text, limits);
  if (format === 'ndjson') return parseNdjson(text, limits);
  return parseJsonRecords(text, limits);
}
