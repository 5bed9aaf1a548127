import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { type Database, openDatabase } from '../../../src/db/connect.js';
import { testConfig } from '../../helpers/app.js';

/*
 * A PostgreSQL cluster of this file's own (initdb in a temp dir, run as user postgres, on a port of
 * the hardening range), so that it can be hung with SIGSTOP — every process of it, postmaster and
 * backends, as a frozen machine would be — without touching the machine's shared server.
 */
const BIN = '/usr/lib/postgresql/15/bin';
const PORT = process.env.TEST_DB === 'postgres' ? 4564 : 4563;
const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());

let dir: string;
let server: ChildProcess;
let database: Database;
let app: FastifyInstance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stages-pg-hang-'));
  chownSync(dir, uid, gid);
  execFileSync(join(BIN, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync'], {
    uid,
    gid,
    stdio: 'ignore',
  });
  server = spawn(
    join(BIN, 'postgres'),
    ['-D', join(dir, 'data'), '-p', String(PORT), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
    { uid, gid, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  for await (const chunk of server.stderr!) if (String(chunk).includes('ready to accept connections')) break;
  server.stderr?.resume();
  database = await openDatabase({ kind: 'postgres', url: `postgres://postgres@127.0.0.1:${PORT}/postgres` });
  await database.migrate();
  app = await buildApp(testConfig(), { database, logger: false });
  await app.ready();
}, 60_000);

afterAll(async () => {
  if (server?.pid) {
    signalCluster('SIGCONT');
    await app?.close();
    await database?.close();
    process.kill(server.pid, 'SIGTERM');
    if (server.exitCode === null) await once(server, 'exit');
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Signals the postmaster and every backend (each backend runs in its own session: setsid). */
function signalCluster(signal: NodeJS.Signals): void {
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.pid)])
    .toString()
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((pid) => pid > 0);
  for (const pid of [server.pid!, ...children]) {
    try {
      process.kill(pid, signal);
    } catch {}
  }
}

const register = () =>
  app.inject({ method: 'POST', url: '/api/oauth/register', payload: { client_name: 'hung database drill' } });

describe('a PostgreSQL that hangs (SIGSTOP), not just one that is gone', () => {
  it('answers registration 503 with Retry-After within seconds, then 201 once it resumes', {
    timeout: 60_000,
  }, async () => {
    // Warm the pool: its connections now lead to backends that will stop answering.
    expect((await register()).statusCode).toBe(201);
    signalCluster('SIGSTOP');
    try {
      const hung = await register();
      expect(hung.statusCode).toBe(503);
      expect(hung.headers['retry-after']).toBe('5');
      expect(hung.json().error).toBe('temporarily_unavailable');
      // Reads never needed the database.
      expect((await app.inject('/api/stages?limit=1')).statusCode).toBe(200);
    } finally {
      signalCluster('SIGCONT');
    }
    expect((await register()).statusCode).toBe(201);
  });
});

describe('a connection the server ends while a transaction holds it', () => {
  it('fails that transaction as an outage; the process keeps running and the pool recovers', {
    timeout: 60_000,
  }, async () => {
    const { sql } = await import('drizzle-orm');
    const { isDatabaseUnavailable } = await import('../../../src/db/unavailable.js');
    const killer = new (await import('pg')).default.Client({
      connectionString: `postgres://postgres@127.0.0.1:${PORT}/postgres`,
    });
    await killer.connect();
    try {
      // Between two statements of a transaction the client is checked out of the pool and runs no
      // query: the server's "terminating connection" then arrives as an 'error' event on the client
      // itself, which with no listener would end the whole process.
      const outcome = await database.db
        .transaction(async (tx) => {
          const rows = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as {
            rows: { pid: number }[];
          };
          await killer.query('select pg_terminate_backend($1)', [rows.rows[0]?.pid]);
          await new Promise((r) => setTimeout(r, 300));
          await tx.execute(sql`select 1`);
        })
        .then(
          () => 'committed',
          (err: unknown) => (isDatabaseUnavailable(err) ? 'unavailable' : `other: ${(err as Error).message}`),
        );
      expect(outcome).toBe('unavailable');
    } finally {
      await killer.end();
    }
    expect((await register()).statusCode).toBe(201);
  });
});
