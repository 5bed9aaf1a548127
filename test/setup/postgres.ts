import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { loadDemoCatalogue } from '../../src/catalogue/demo/load.js';
import { dateIn } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Builds a migrated template database holding the demo catalogue; each test file clones it
 * with CREATE DATABASE … TEMPLATE. Without a reachable server this fails the run on purpose.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // One per project of this run (two projects use PostgreSQL), so that neither drops the other's.
  const TEMPLATE = `stages_template_${process.pid}_${project.name}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(
      `The PostgreSQL suite needs a server at ${ADMIN_URL} (set TEST_POSTGRES_URL to use another): ${(err as Error).message}. ` +
        'Start it (see README, "Tests"), or run only the embedded suite with `npm run test:embedded`.',
    );
  }
  await admin.query(`drop database if exists ${TEMPLATE}`);
  await admin.query(`create database ${TEMPLATE}`);
  const database = await openDatabase({ kind: 'postgres', url: databaseUrl(ADMIN_URL, TEMPLATE) });
  await database.migrate();
  await loadDemoCatalogue(database.db, { today: dateIn(new Date()) });
  await database.close();
  project.provide('postgresTemplate', { adminUrl: ADMIN_URL, template: TEMPLATE });
  return async () => {
    await admin.query(`drop database if exists ${TEMPLATE} with (force)`);
    await admin.end();
  };
}
