import { parseCsvRecords } from './parse-csv.js';
import { parseJsonRecords } from './parse-json.js';
import { parseNdjson } from './parse-ndjson.js';
import type { ImportFormat, ImportLimits, ImportRecord } from './records.js';
import { type ImportSource, textOf } from './source.js';

/**
 * Reads a batch in one of the three formats into records (not yet checked) as its bytes arrive,
 * refusing it (413) as soon as it holds more than `limits.maxRecords` records or `maxBytes` bytes.
 */
export function parseImport(
  source: ImportSource,
  format: ImportFormat,
  limits: ImportLimits & { maxBytes?: number },
): Promise<ImportRecord[]> {
  const text = textOf(source, limits.maxBytes);
  if (format === 'csv') return parseCsvRecords(text, limits);
  if (format === 'ndjson') return parseNdjson(text, limits);
  return parseJsonRecords(text, limits);
}
