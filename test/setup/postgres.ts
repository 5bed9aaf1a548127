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

interface Template {
  ready: Promise<void>;
  users: number;
}
// Shared by the projects that use PostgreSQL (postgres, interop): built once per run, dropped after
// the last of them. On globalThis, in case each project loads this file as a module of its own.
const shared = globalThis as { stagesTemplates?: Map<string, Template> };
shared.stagesTemplates ??= new Map();
const templates = shared.stagesTemplates;
const TEMPLATE = `stages_template_${process.pid}`;

/**
 * Builds a migrated template database holding the demo catalogue; each test clones it with
 * CREATE DATABASE … TEMPLATE. Without a reachable server this fails the run on purpose.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let template = templates.get(TEMPLATE);
  if (!template) {
    template = { ready: buildTemplate(), users: 0 };
    templates.set(TEMPLATE, template);
  }
  template.users++;
  await template.ready;
  project.provide('postgresTemplate', { adminUrl: ADMIN_URL, template: TEMPLATE });
  return async () => {
    if (--(template as Template).users > 0) return;
    templates.delete(TEMPLATE);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${TEMPLATE} with (force)`);
    await admin.end();
  };
}

async function buildTemplate(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(
      `The PostgreSQL suite needs a server at ${ADMIN_URL} (set TEST_POSTGRES_URL to use another): ${(err as Error).message}. ` +
        'Start it (see README, "Tests"), or run only the embedded suite with `npm run test:embedded`.',
    );
  }
  try {
    await admin.query(`drop database if exists ${TEMPLATE}`);
    await admin.query(`create database ${TEMPLATE}`);
  } finally {
    await admin.end();
  }
  const database = await openDatabase({ kind: 'postgres', url: databaseUrl(ADMIN_URL, TEMPLATE) });
  await database.migrate();
  await loadDemoCatalogue(database.db, { today: dateIn(new Date()) });
  await database.close();
}
