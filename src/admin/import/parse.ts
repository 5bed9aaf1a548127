import { parse as parseCsv } from 'csv-parse/sync';
import type { FieldError } from '../../core/errors.js';
import { NUMERIC_COLUMNS } from './columns.js';
import { type ImportFormat, type ImportRecord, malformed } from './records.js';

const JSON_SHAPE = 'A JSON import is {"centres": [...], "sessions": [...]} or an array of records each with a "type".';

/** Reads a batch in one of the three formats into records (not yet checked). */
export function parseImport(input: string | unknown, format: ImportFormat): ImportRecord[] {
  if (format === 'csv') return parseCsvRecords(String(input));
  if (format === 'ndjson') return parseNdjson(String(input));
  return parseJson(typeof input === 'string' ? safeJson(input) : input);
}

function typeOf(type: unknown): string | undefined {
  return typeof type === 'string' ? type : undefined;
}

/** One record with a `type` per line; blank lines are skipped, every bad line is listed. */
function parseNdjson(text: string): ImportRecord[] {
  const records: ImportRecord[] = [];
  const issues: FieldError[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const data = JSON.parse(line) as unknown;
      if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('not an object');
      const { type, ...rest } = data as Record<string, unknown>;
      records.push({ index: records.length, line: i + 1, type: typeOf(type), data: rest });
    } catch {
      issues.push({ name: '(line)', reason: 'is not a JSON object', index: records.length, line: i + 1 });
    }
  });
  if (issues.length) throw malformed(`${issues.length} line(s) of the NDJSON are not JSON objects.`, issues);
  return records;
}

/** An array of records with a `type`, or `{"centres": [...], "sessions": [...]}`. */
function parseJson(body: unknown): ImportRecord[] {
  if (Array.isArray(body)) {
    return body.map((item, index) => {
      const { type, ...data } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
      return { index, type: typeOf(type), data };
    });
  }
  if (typeof body !== 'object' || body === null) throw malformed(JSON_SHAPE);
  const { centres: c = [], sessions: s = [], ...other } = body as Record<string, unknown>;
  if (Object.keys(other).length || !Array.isArray(c) || !Array.isArray(s)) throw malformed(JSON_SHAPE);
  const records: ImportRecord[] = [];
  for (const item of c) records.push({ index: records.length, type: 'centre', data: objectOf(item) });
  for (const item of s) records.push({ index: records.length, type: 'session', data: objectOf(item) });
  return records;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformed('The body is not valid JSON.');
  }
}

function objectOf(item: unknown): Record<string, unknown> {
  return typeof item === 'object' && item !== null && !Array.isArray(item) ? { ...(item as object) } : { '': item };
}

/** A header row and a `type` column; empty cells are absent fields, number-like cells of numeric columns numbers. */
function parseCsvRecords(text: string): ImportRecord[] {
  let rows: Record<string, string>[];
  try {
    rows = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true, trim: true }) as Record<string, string>[];
  } catch (err) {
    throw malformed(`The CSV cannot be read: ${(err as Error).message}`);
  }
  return rows.map((row, index) => {
    const data: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key === 'type' || value === '') continue;
      data[key] = NUMERIC_COLUMNS.has(key) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    }
    return { index, line: index + 2, type: row.type || undefined, data };
  });
}
