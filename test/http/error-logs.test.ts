import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.js';
import { buildApp } from '../../src/app.js';
import { DomainError } from '../../src/core/errors.js';
import { loggableError } from '../../src/core/loggable-error.js';
import { testConfig } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';

/*
 * Error log lines say which error (class, SQLSTATE) and where (stack frames), never the statement
 * or its parameters: Drizzle quotes both in its message, and a parameter can be a reservation
 * reference or an email.
 */

const REFERENCE = 'SRP-7K4Q-2M9X';
let db: TestDatabase | undefined;
afterEach(async () => {
  await db?.dispose().catch(() => {}); // a test may have closed it already
  db = undefined;
});

async function appLogging() {
  db = await openTestDatabase();
  const lines: string[] = [];
  const app = await buildApp(testConfig({ LOG_LEVEL: 'info' }), {
    database: db.database,
    logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
  });
  const { key } = await createApiKey(db.database.db, { name: 'ops', role: 'admin', centreId: null });
  return { app, lines, headers: { authorization: `Bearer ${key}` }, database: db.database };
}

function expectNoStatement(line: string) {
  expect(line).not.toMatch(/select\s.+\sfrom\s|Failed query|params:/i);
  expect(line).not.toContain(REFERENCE);
}

describe('error logs', () => {
  it('log a failed query by class and SQLSTATE, without the statement or its parameters', async () => {
    const { app, lines, headers, database } = await appLogging();
    await database.db.execute(sql`alter table reservations rename to reservations_elsewhere`);
    const res = await app.inject({ url: `/api/admin/reservations?reference=${REFERENCE}`, headers });
    expect(res.statusCode).toBe(500);
    const failed = lines.filter((l) => l.includes('"request failed"'));
    expect(failed).toHaveLength(1);
    const line = failed[0] as string;
    expectNoStatement(line);
    const { err } = JSON.parse(line);
    expect(err).toMatchObject({ type: 'DrizzleQueryError', cause: { code: '42P01' } });
    expect(err.stack).toMatch(/^\s+at /);
    await app.close();
  });

  it('log a database outage (a closed database) the same way', async () => {
    const { app, lines, headers, database } = await appLogging();
    await database.close();
    const res = await app.inject({ url: `/api/admin/reservations?reference=${REFERENCE}`, headers });
    expect(res.statusCode).toBe(503);
    const warned = lines.filter((l) => l.includes('database unavailable'));
    expect(warned.length).toBeGreaterThan(0);
    for (const line of warned) expectNoStatement(line);
    await app.close();
  });

  it('keep the message of an error that is not the database’s', () => {
    const cause = new TypeError('x is not a function');
    expect(loggableError(new DomainError(409, 'conflict', 'taken', undefined))).toMatchObject({
      type: 'DomainError',
      message: 'taken',
    });
    expect(loggableError(new Error('outer', { cause }))).toMatchObject({
      message: 'outer',
      cause: { type: 'TypeError', message: 'x is not a function' },
    });
    const wrapped = Object.assign(new Error(`Failed query: select 1 where ref = $1\nparams: ${REFERENCE}`), {
      cause: Object.assign(new Error(`invalid input "${REFERENCE}"`), { code: '22P02', severity: 'ERROR' }),
    });
    expectNoStatement(JSON.stringify(loggableError(wrapped)));
    expect(loggableError(wrapped)).toMatchObject({ cause: { code: '22P02' } });
  });
});
