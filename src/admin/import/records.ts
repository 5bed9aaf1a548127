import { setImmediate as nextTurn } from 'node:timers/promises';
import { DomainError, type FieldError } from '../../core/errors.js';
import type { CentreInput, SessionInput } from '../schemas.js';
import type { IssueList } from './issues.js';

/*
 * A whole batch of centres and sessions, upserted by id, all or nothing: every record is checked
 * (alone, against the batch, against the database) before anything is written, and one bad record
 * refuses the batch with what is wrong (the first issues listed, all counted). Formats: JSON
 * ({"centres":[…],"sessions":[…]} or an array of records with a "type"), NDJSON (one record with a
 * "type" per line) and CSV (a header row, a "type" column, the union of both kinds' columns). A
 * batch holds at most IMPORT_MAX_RECORDS records, each read a slice at a time (pace.ts).
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

/** A refused batch: `errors` lists the first bad fields (with index, line, type and id), `errorCount` counts them all; nothing was written. */
export class ImportRefused extends DomainError {
  declare readonly errors: FieldError[];
  constructor(status: number, code: string, message: string, issues: FieldError[] | IssueList = []) {
    const listed = Array.isArray(issues) ? issues : issues.listed;
    const count = Array.isArray(issues) ? issues.length : issues.count;
    super(status, code, message, listed, count > 0 ? count : undefined);
  }
}

export function malformed(message: string, issues: FieldError[] | IssueList = []): ImportRefused {
  return new ImportRefused(400, 'malformed_import', message, issues);
}

/** What one import may hold: `maxRecords` is IMPORT_MAX_RECORDS. */
export interface ImportLimits {
  maxRecords: number;
}

/**
 * A record whose text is longer than this is refused unread. The longest valid centre is under
 * 2,000 characters, under 12,000 with every character escaped; the bound keeps each record's
 * parse a short piece of work, whatever the file holds.
 */
export const MAX_RECORD_CHARS = 64 * 1024;

/** Refused as soon as record `max + 1` is found, before the rest of the file is read. */
export function tooManyRecords(max: number): ImportRefused {
  return new ImportRefused(
    413,
    'too_many_records',
    `The import holds more than ${max} records, the most one import takes (IMPORT_MAX_RECORDS); nothing was written. Split it into files of at most ${max} records.`,
  );
}

export function recordTooLong(where: string): ImportRefused {
  return malformed(`${where} is longer than ${MAX_RECORD_CHARS} characters; no valid centre or session is.`);
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

/**
 * Rows are read and written this many at a time: bound parameters stay well under PostgreSQL's limit,
 * and on the embedded database each chunk (built and run within one turn of the event loop) stays
 * a few tens of milliseconds.
 */
export const CHUNK = 50;

/**
 * Runs `query` on each chunk of `values` and joins the rows, with a turn of the event loop between
 * chunks: the embedded database answers within the same turn (its queries are promises that never
 * wait on I/O), so a batch's queries would otherwise hold the event loop from first to last.
 */
export async function inChunks<T>(values: readonly string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < values.length; i += CHUNK) {
    if (i > 0) await nextTurn();
    out.push(...(await query(values.slice(i, i + CHUNK))));
  }
  return out;
}
