import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { asc, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/connect.js';
import { centres, stageSessions } from '../db/schema.js';
import {
  type CentreRow,
  catalogueWrite,
  centreValues,
  centreView,
  type SessionRow,
  sameCentre,
  sameSession,
  sessionValues,
  sessionView,
  type WriteScope,
} from './repository.js';
import { type CentreInput, CentreInputSchema, type SessionInput, SessionInputSchema, uuidField } from './schemas.js';

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

export interface ImportIssue {
  index: number;
  line?: number;
  type?: string;
  id?: string;
  field: string;
  reason: string;
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

export class ImportRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: ImportIssue[],
  ) {
    super(message);
  }
}

/** Most issues listed in one answer: past this, the rest are counted, not listed. */
const MAX_ISSUES = 1000;
const CHUNK = 500;

export const CSV_COLUMNS = [
  'type',
  'id',
  'slug',
  'name',
  'address',
  'city',
  'postalCode',
  'deptCode',
  'lat',
  'lng',
  'agrementNumber',
  'email',
  'phone',
  'centreId',
  'courseNumber',
  'day1',
  'day2',
  'startTime',
  'endTime',
  'priceEuros',
  'capacity',
  'spotsAvailable',
  'status',
] as const;
const NUMERIC_COLUMNS = new Set(['lat', 'lng', 'priceEuros', 'capacity', 'spotsAvailable']);
const CENTRE_FIELDS = new Set([
  'slug',
  'name',
  'address',
  'city',
  'postalCode',
  'deptCode',
  'lat',
  'lng',
  'agrementNumber',
  'email',
  'phone',
]);
const SESSION_FIELDS = new Set([
  'centreId',
  'courseNumber',
  'day1',
  'day2',
  'startTime',
  'endTime',
  'priceEuros',
  'capacity',
  'spotsAvailable',
  'status',
]);

function malformed(message: string, issues: ImportIssue[] = []): ImportRefused {
  return new ImportRefused(400, 'malformed_import', message, issues);
}

/** Reads a batch in one of the three formats into records (not yet checked). */
export function parseImport(input: string | unknown, format: ImportFormat): ImportRecord[] {
  if (format === 'csv') return parseCsvRecords(String(input));
  if (format === 'ndjson') {
    const records: ImportRecord[] = [];
    const issues: ImportIssue[] = [];
    String(input)
      .split('\n')
      .forEach((text, i) => {
        if (text.trim() === '') return;
        try {
          const data = JSON.parse(text) as unknown;
          if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('not an object');
          const { type, ...rest } = data as Record<string, unknown>;
          records.push({
            index: records.length,
            line: i + 1,
            type: typeof type === 'string' ? type : undefined,
            data: rest,
          });
        } catch {
          issues.push({ index: records.length, line: i + 1, field: '(line)', reason: 'is not a JSON object' });
        }
      });
    if (issues.length) throw malformed(`${issues.length} line(s) of the NDJSON are not JSON objects.`, issues);
    return records;
  }
  const body = typeof input === 'string' ? safeJson(input) : input;
  if (Array.isArray(body)) {
    return body.map((item, index) => {
      const { type, ...data } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
      return { index, type: typeof type === 'string' ? type : undefined, data };
    });
  }
  if (typeof body === 'object' && body !== null) {
    const { centres: c = [], sessions: s = [], ...other } = body as Record<string, unknown>;
    const unknown = Object.keys(other);
    if (unknown.length || !Array.isArray(c) || !Array.isArray(s))
      throw malformed(
        'A JSON import is {"centres": [...], "sessions": [...]} or an array of records each with a "type".',
      );
    const records: ImportRecord[] = [];
    for (const item of c) records.push({ index: records.length, type: 'centre', data: objectOf(item) });
    for (const item of s) records.push({ index: records.length, type: 'session', data: objectOf(item) });
    return records;
  }
  throw malformed('A JSON import is {"centres": [...], "sessions": [...]} or an array of records each with a "type".');
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

interface Prepared {
  centres: { id: string; input: CentreInput; index: number }[];
  sessions: { id: string; input: SessionInput; index: number }[];
}

/** Checks every record alone, then against the batch and the database. Throws ImportRefused (422) listing all. */
async function prepare(db: Db, records: readonly ImportRecord[], scope: WriteScope): Promise<Prepared> {
  const issues: ImportIssue[] = [];
  const add = (r: ImportRecord, field: string, reason: string, id?: unknown) => {
    issues.push({
      index: r.index,
      ...(r.line === undefined ? {} : { line: r.line }),
      ...(r.type === undefined ? {} : { type: r.type }),
      ...(typeof id === 'string' ? { id } : {}),
      field,
      reason,
    });
  };
  const prepared: Prepared = { centres: [], sessions: [] };
  const seen = { centre: new Map<string, number>(), session: new Map<string, number>() };
  const taken = new Map<string, { id: string; index: number }>();
  const claim = (r: ImportRecord, field: string, value: string, id: string) => {
    const key = `${field}\u0000${value}`;
    const other = taken.get(key);
    if (other && other.id !== id) add(r, field, `${field} ${value} is also given to record ${other.index}`, id);
    else taken.set(key, { id, index: r.index });
  };
  for (const r of records) {
    if (r.type !== 'centre' && r.type !== 'session') {
      add(r, 'type', 'type must be "centre" or "session"', r.data.id);
      continue;
    }
    const { id: rawId, ...fields } = r.data;
    const id = uuidField('id').safeParse(rawId);
    if (!id.success) {
      add(r, 'id', 'id must be a UUID (derive it from your own reference with UUID v5 to keep it stable)', rawId);
      continue;
    }
    if (seen[r.type].has(id.data)) {
      add(r, 'id', `id is also the id of record ${seen[r.type].get(id.data)}`, id.data);
      continue;
    }
    seen[r.type].set(id.data, r.index);
    const schema: z.ZodType = r.type === 'centre' ? CentreInputSchema : SessionInputSchema;
    const parsed = schema.safeParse(fields);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field =
          issue.path.length > 0
            ? String(issue.path[0])
            : issue.code === 'unrecognized_keys'
              ? (issue.keys as string[]).join(', ')
              : '(record)';
        const reason =
          issue.code === 'unrecognized_keys'
            ? `unknown field${issue.keys.length > 1 ? 's' : ''} (a ${r.type} has: ${[...(r.type === 'centre' ? CENTRE_FIELDS : SESSION_FIELDS)].join(', ')})`
            : issue.message;
        add(r, field, reason, id.data);
      }
      continue;
    }
    if (r.type === 'centre') {
      if (scope.centreId !== null) {
        add(r, 'type', 'a partner key may import only its own sessions, not centres', id.data);
        continue;
      }
      const input = parsed.data as CentreInput;
      claim(r, 'slug', input.slug, id.data);
      claim(r, 'agrementNumber', input.agrementNumber, id.data);
      prepared.centres.push({ id: id.data, input, index: r.index });
    } else {
      const input = parsed.data as SessionInput;
      if (scope.centreId !== null && input.centreId !== scope.centreId) {
        add(r, 'centreId', "a partner key may import only its own centre's sessions", id.data);
        continue;
      }
      claim(r, 'courseNumber', input.courseNumber, id.data);
      prepared.sessions.push({ id: id.data, input, index: r.index });
    }
  }

  // Against the database: centres that sessions name, and unique fields held by records not in the batch.
  const byIndex = new Map(records.map((r) => [r.index, r]));
  const batchCentres = new Set(prepared.centres.map((c) => c.id));
  const wanted = [...new Set(prepared.sessions.map((s) => s.input.centreId))].filter((id) => !batchCentres.has(id));
  const known = new Set<string>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const rows = await db
      .select({ id: centres.id })
      .from(centres)
      .where(inArray(centres.id, wanted.slice(i, i + CHUNK)));
    for (const row of rows) known.add(row.id);
  }
  for (const s of prepared.sessions) {
    if (!batchCentres.has(s.input.centreId) && !known.has(s.input.centreId))
      add(byIndex.get(s.index) as ImportRecord, 'centreId', 'no centre has this id, in the batch or stored', s.id);
  }
  const holders = async (column: 'slug' | 'agrementNumber' | 'courseNumber', values: string[]) => {
    const found = new Map<string, string>();
    const table = column === 'courseNumber' ? stageSessions : centres;
    const col =
      column === 'courseNumber'
        ? stageSessions.courseNumber
        : column === 'slug'
          ? centres.slug
          : centres.agrementNumber;
    for (let i = 0; i < values.length; i += CHUNK) {
      const rows = await db
        .select({ id: table.id, value: col })
        .from(table)
        .where(inArray(col, values.slice(i, i + CHUNK)));
      for (const row of rows) found.set(row.value, row.id);
    }
    return found;
  };
  const batchSessions = new Set(prepared.sessions.map((s) => s.id));
  const checkHeld = async <T extends { id: string; index: number }>(
    items: T[],
    column: 'slug' | 'agrementNumber' | 'courseNumber',
    value: (item: T) => string,
    inBatch: Set<string>,
  ) => {
    const held = await holders(column, items.map(value));
    for (const item of items) {
      const holder = held.get(value(item));
      // A holder that is itself in the batch gives the value up or keeps it: the batch checks settle that.
      if (holder && holder !== item.id && !inBatch.has(holder))
        add(
          byIndex.get(item.index) as ImportRecord,
          column,
          `${column} ${value(item)} is already used by ${holder}`,
          item.id,
        );
    }
  };
  await checkHeld(prepared.centres, 'slug', (c) => c.input.slug, batchCentres);
  await checkHeld(prepared.centres, 'agrementNumber', (c) => c.input.agrementNumber, batchCentres);
  await checkHeld(prepared.sessions, 'courseNumber', (s) => s.input.courseNumber, batchSessions);
  if (scope.centreId !== null) {
    const ids = prepared.sessions.map((s) => s.id);
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await db
        .select({ id: stageSessions.id, centreId: stageSessions.centreId })
        .from(stageSessions)
        .where(inArray(stageSessions.id, ids.slice(i, i + CHUNK)));
      for (const row of rows)
        if (row.centreId !== scope.centreId) {
          const s = prepared.sessions.find((x) => x.id === row.id);
          if (s) add(byIndex.get(s.index) as ImportRecord, 'id', 'this session belongs to another centre', s.id);
        }
    }
  }

  if (issues.length > 0) {
    issues.sort((a, b) => a.index - b.index);
    const listed = issues.slice(0, MAX_ISSUES);
    const badRecords = new Set(issues.map((i) => i.index)).size;
    throw new ImportRefused(
      422,
      'invalid_records',
      `${badRecords} of ${records.length} record(s) are invalid; nothing was written.${issues.length > MAX_ISSUES ? ` The first ${MAX_ISSUES} of ${issues.length} issues are listed.` : ''}`,
      listed,
    );
  }
  return prepared;
}

/** Validates a batch and, unless `dryRun`, writes it in one transaction. */
export async function importBatch(
  db: Db,
  records: readonly ImportRecord[],
  scope: WriteScope,
  options: { dryRun: boolean },
): Promise<ImportResult> {
  const prepared = await prepare(db, records, scope);
  const run = async (tx: Parameters<Parameters<typeof catalogueWrite>[1]>[0] | Db): Promise<ImportResult> => {
    const result: ImportResult = {
      dryRun: options.dryRun,
      centres: { created: 0, updated: 0, unchanged: 0 },
      sessions: { created: 0, updated: 0, unchanged: 0 },
    };
    const centreWrites: (typeof centres.$inferInsert)[] = [];
    const existingCentres = await rowsById<CentreRow>(
      tx,
      centres,
      prepared.centres.map((c) => c.id),
    );
    for (const c of prepared.centres) {
      const values = centreValues(c.input);
      const current = existingCentres.get(c.id);
      if (current && sameCentre(current, values)) result.centres.unchanged++;
      else {
        result.centres[current ? 'updated' : 'created']++;
        centreWrites.push({ id: c.id, ...values });
      }
    }
    const sessionWrites: (typeof stageSessions.$inferInsert)[] = [];
    const existingSessions = await rowsById<SessionRow>(
      tx,
      stageSessions,
      prepared.sessions.map((s) => s.id),
    );
    for (const s of prepared.sessions) {
      const values = sessionValues(s.input);
      const current = existingSessions.get(s.id);
      if (current && sameSession(current, values)) result.sessions.unchanged++;
      else {
        result.sessions[current ? 'updated' : 'created']++;
        sessionWrites.push({ id: s.id, ...values });
      }
    }
    if (options.dryRun) return result;
    for (let i = 0; i < centreWrites.length; i += CHUNK) {
      await tx
        .insert(centres)
        .values(centreWrites.slice(i, i + CHUNK))
        .onConflictDoUpdate({
          target: centres.id,
          set: excludedSet(
            centres,
            Object.keys(centreWrites[0] ?? {}).filter((k) => k !== 'id'),
          ),
        });
    }
    for (let i = 0; i < sessionWrites.length; i += CHUNK) {
      await tx
        .insert(stageSessions)
        .values(sessionWrites.slice(i, i + CHUNK))
        .onConflictDoUpdate({
          target: stageSessions.id,
          set: excludedSet(
            stageSessions,
            Object.keys(sessionWrites[0] ?? {}).filter((k) => k !== 'id'),
          ),
        });
    }
    return result;
  };
  return options.dryRun ? run(db) : catalogueWrite(db, run);
}

/** `set col = excluded.col` for each column, and a fresh updated_at. */
function excludedSet(table: typeof centres | typeof stageSessions, keys: string[]) {
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  const columns = table as unknown as Record<string, { name: string }>;
  for (const key of keys) {
    const column = columns[key];
    if (column) set[key] = sql.raw(`excluded."${column.name}"`);
  }
  return set;
}

async function rowsById<T extends { id: string }>(
  db: Pick<Db, 'select'>,
  table: typeof centres | typeof stageSessions,
  ids: string[],
): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = (await db
      .select()
      .from(table)
      .where(inArray(table.id, ids.slice(i, i + CHUNK)))) as unknown as T[];
    for (const row of rows) out.set(row.id, row);
  }
  return out;
}

/** The whole stored catalogue in the import's own format: exporting then importing changes nothing. */
export async function exportCatalogue(db: Db, format: 'json' | 'csv' | 'ndjson'): Promise<string> {
  const centreRows = (await db.select().from(centres).orderBy(asc(centres.id))).map((row) => {
    const { updatedAt: _, ...rest } = centreView(row);
    return rest;
  });
  const sessionRows = (
    await db.select().from(stageSessions).orderBy(asc(stageSessions.day1), asc(stageSessions.id))
  ).map((row) => {
    const { updatedAt: _, ...rest } = sessionView(row);
    return rest;
  });
  const tidy = <T extends Record<string, unknown>>(r: T) =>
    Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)) as T;
  if (format === 'json')
    return `${JSON.stringify({ centres: centreRows.map(tidy), sessions: sessionRows.map(tidy) }, null, 2)}\n`;
  if (format === 'ndjson')
    return [
      ...centreRows.map((c) => JSON.stringify({ type: 'centre', ...tidy(c) })),
      ...sessionRows.map((s) => JSON.stringify({ type: 'session', ...tidy(s) })),
    ]
      .map((line) => `${line}\n`)
      .join('');
  const rows = [
    ...centreRows.map((c) => ({ type: 'centre', ...c })),
    ...sessionRows.map((s) => ({ type: 'session', ...s })),
  ] as Record<string, unknown>[];
  return stringifyCsv(
    rows.map((r) => CSV_COLUMNS.map((col) => (r[col] === null || r[col] === undefined ? '' : String(r[col])))),
    { header: true, columns: [...CSV_COLUMNS] },
  );
}
