import { pipeline, Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { NUMERIC_COLUMNS } from './columns.js';
import { restore } from './csv-cells.js';
import { Pacer } from './pace.js';
import {
  type ImportLimits,
  type ImportRecord,
  ImportRefused,
  MAX_RECORD_CHARS,
  malformed,
  tooManyRecords,
} from './records.js';

interface Row {
  record: Record<string, string>;
  info: { lines: number };
}

/**
 * A header row and a `type` column; empty cells are absent fields, number-like cells of numeric
 * columns numbers, and the quote the export puts before formula-like text is taken off
 * (csv-cells.ts). Read as a stream, refused at record `limits.maxRecords + 1`.
 */
export async function parseCsvRecords(text: AsyncIterable<string>, limits: ImportLimits): Promise<ImportRecord[]> {
  const parser = parse({
    columns: true,
    bom: true,
    skip_empty_lines: true,
    trim: true,
    info: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  // Errors reach the loop below through the parser; pipeline destroys the source when it stops.
  const rows = pipeline(Readable.from(text), parser, () => {});
  const records: ImportRecord[] = [];
  const pacer = new Pacer();
  try {
    for await (const row of rows as AsyncIterable<Row>) {
      if (records.length === limits.maxRecords) throw tooManyRecords(limits.maxRecords);
      records.push(recordOf(row, records.length));
      await pacer.tick();
    }
  } catch (err) {
    if (err instanceof ImportRefused) throw err;
    throw malformed(`The CSV cannot be read: ${(err as Error).message}`);
  }
  return records;
}

function recordOf({ record, info }: Row, index: number): ImportRecord {
  const data: Record<string, unknown> = {};
  for (const [key, cell] of Object.entries(record)) {
    if (key === 'type' || cell === '') continue;
    const value = restore(cell);
    data[key] = NUMERIC_COLUMNS.has(key) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return { index, line: info.lines, type: record.type || undefined, data };
}
