import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../../src/db/pglite.js';
import { freePort } from '../../helpers/ports.js';
import { collectOutput, untilHealthy } from '../../helpers/service-process.js';

/*
 * The compiled service's first start on an empty data directory (server.ts): a short-lived child
 * creates the embedded database, loads the demo and keeps the catalogue's copy beside it
 * (catalogue/stored-copy.ts), so that the server reads that one file, as a restart does, instead of
 * every session through PGlite. The child is the step the first start runs before the server opens
 * the database; here it is run alone, so that the copy can be altered before the server reads it.
 */

const run = promisify(execFile);
const COPY = 'stages-catalogue.json';

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('the first start on an empty data directory', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  const env = () => ({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT: 'off' });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stages-first-start-'));
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the demo catalogue it loads as the copy the server then starts from', async () => {
    await run(process.execPath, ['dist/server.js', '--prepare-only'], { env: env(), timeout: 90_000 });

    const [header, ...records] = (await readFile(join(dataDir, COPY), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const sessions = records.filter((r) => 'centreId' in r);
    expect(header?.sessions).toBe(sessions.length);
    expect(sessions.length).toBeGreaterThan(10_000); // the demo catalogue, every session of it

    // A price only the copy holds, its stamp kept: what the server answers shows which it read.
    // The last of the sessions in date order: far enough ahead to be served whatever the day.
    const session = sessions.filter((s) => s.status === 'scheduled').at(-1);
    expect(session?.priceCents).not.toBe(12_345);
    const altered = [header, ...records].map((r) =>
      JSON.stringify(r?.id === session?.id ? { ...r, priceCents: 12_345 } : r),
    );
    await writeFile(join(dataDir, COPY), `${altered.join('\n')}\n`);

    const port = await freePort();
    child = spawn(process.execPath, ['dist/server.js'], {
      env: { ...env(), PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await untilHealthy(child, port, collectOutput(child));
    const res = await fetch(`http://127.0.0.1:${port}/api/stages/${session?.id}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { priceEuros: number }).priceEuros).toBe(123.45);
  }, 120_000);

  it('runs the embedded PostgreSQL with 8 MB of shared buffers (docs/operations.md)', async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
    const database = await openPglite(dataDir);
    try {
      const rows = (await database.db.execute(sql`show shared_buffers`)) as unknown as {
        rows: { shared_buffers: string }[];
      };
      expect(rows.rows[0]?.shared_buffers).toBe('8MB');
    } finally {
      await database.close();
    }
  }, 60_000);
});
