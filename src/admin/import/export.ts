import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { asc } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { centres, stageSessions } from '../../db/schema.js';
import { centreView, sessionView } from '../repository/views.js';
import { CSV_COLUMNS } from './columns.js';
import { neutralise } from './csv-cells.js';

/** A record without its nulls (absent fields import as null). */
const tidy = <T extends Record<string, unknown>>(r: T) =>
  Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)) as T;

/** The whole stored catalogue in the import's own format: exporting then importing changes nothing. */
export async function exportCatalogue(db: Db, format: 'json' | 'csv' | 'ndjson'): Promise<string> {
  const centreRows = (await db.select().from(centres).orderBy(asc(centres.id))).map((row) => {
    // The approval's day is the centre's; its expiry is derived, and a suspension is the operator's state, not data.
    const {
      updatedAt: _,
      approvalExpiresOn: _e,
      suspended: _s,
      suspendedAt: _a,
      suspensionReason: _r,
      ...rest
    } = centreView(row);
    return rest;
  });
  const sessionRows = (
    await db.select().from(stageSessions).orderBy(asc(stageSessions.day1), asc(stageSessions.id))
  ).map((row) => {
    const { updatedAt: _, ...rest } = sessionView(row);
    return rest;
  });
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
    rows.map((r) => CSV_COLUMNS.map((col) => cell(r[col]))),
    { header: true, columns: [...CSV_COLUMNS] },
  );
}

/** A CSV cell: empty for null, numbers as numbers, text neutralised against formulas (csv-cells.ts). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? neutralise(value) : String(value);
}
