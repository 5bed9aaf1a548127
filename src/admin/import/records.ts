import { DomainError, type FieldError } from '../../core/errors.js';
import type { CentreInput, SessionInput } from '../schemas.js';

/*
 * A whole batch of centres and sessions, upserted by id, all or nothing: every record is checked
 * (alone, against the batch, against the database) before anything is written, and one bad record
 * refuses the batch with the full list of what is wrong. Formats: JSON ({"centres":[…],"sessions":[…]}
 * or an array of records with a "type"), NDJSON (one record with a "type" per line) and CSV (a
 * header row, a "type" column, the union of both kinds' columns).
 */

export type ImportFormat = 'json' | 'ndjson' | 'csv';

export interface ImportRecord {
  /** Position in the batch, from 0. */
  index: number;
  /** Line in the file (NDJSON and CSV; a CSV's header is line 1). */
  line?: number;
  type: string | undefined;
  data: Record<string, unknown>;
}

export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
}

export interface ImportResult {
  dryRun: boolean;
  centres: ImportCounts;
  sessions: ImportCounts;
}

/** Records that passed every check, with their position in the batch. */
export interface Prepared {
  centres: { id: string; input: CentreInput; index: number }[];
  sessions: { id: string; input: SessionInput; index: number }[];
}

/** A refused batch: `errors` lists each bad record's field (with index, line, type and id); nothing was written. */
export class ImportRefused extends DomainError {
  declare readonly errors: FieldError[];
  constructor(status: number, code: string, message: string, errors: FieldError[]) {
    super(status, code, message, errors);
  }
}

export function malformed(message: string, errors: FieldError[] = []): ImportRefused {
  return new ImportRefused(400, 'malformed_import', message, errors);
}

/** An issue with a record, placed by its index, line, type and id. */
export function issueAt(record: ImportRecord, field: string, reason: string, id?: unknown): FieldError {
  return {
    name: field,
    reason,
    index: record.index,
    ...(record.line === undefined ? {} : { line: record.line }),
    ...(record.type === undefined ? {} : { type: record.type }),
    ...(typeof id === 'string' ? { id } : {}),
  };
}

/** Rows are read and written this many at a time (bound parameters stay well under PostgreSQL's limit). */
export const CHUNK = 500;

/** Runs `query` on each chunk of `values` and joins the rows. */
export async function inChunks<T>(values: readonly string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < values.length; i += CHUNK) out.push(...(await query(values.slice(i, i + CHUNK))));
  return out;
}
